import type { SubscriptionDto, SubscriptionListItemDto } from './dto/subscription.dto';
import { shownNextBillingDate } from './subscription-state';
import type { SubscriptionView } from './subscriptions.service';

export function toSubscriptionDto({
  subscription: s,
  customerReference,
}: SubscriptionView): SubscriptionDto {
  return {
    id: s.id,
    status: s.status,
    productId: s.productId,
    priceId: s.priceId,
    customerReference,
    startDate: s.startDate,
    currentPeriodStart: s.currentPeriodStart,
    nextBillingDate: shownNextBillingDate(s),
    trialEndDate: s.trialEndDate,
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    canceledAt: s.canceledAt?.toISOString() ?? null,
    amountMinor: s.amountMinor,
    currency: s.currency,
    interval: s.interval,
    intervalCount: s.intervalCount,
    openInvoiceId: s.openInvoiceId,
    mode: s.mode,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

export function toSubscriptionListItemDto(view: SubscriptionView): SubscriptionListItemDto {
  const d = toSubscriptionDto(view);
  return {
    id: d.id,
    status: d.status,
    productId: d.productId,
    priceId: d.priceId,
    startDate: d.startDate,
    nextBillingDate: d.nextBillingDate,
    cancelAtPeriodEnd: d.cancelAtPeriodEnd,
    mode: d.mode,
    createdAt: d.createdAt,
  };
}
