import { DomainEvent, OutboxEntry } from '../common/domain-events';
import type { TenantScope } from '../database/tenant';
import type { EntitlementChange } from '../entitlements';
import type { Subscription } from './subscription.entity';
import { shownNextBillingDate, type SubscriptionStatus } from './subscription-state';

export type SubscriptionFactType =
  | 'subscription.created'
  | 'subscription.activated'
  | 'subscription.trial_will_end'
  | 'subscription.renewed'
  | 'subscription.payment_succeeded'
  | 'subscription.payment_failed'
  | 'subscription.past_due'
  | 'subscription.canceled'
  | 'subscription.paused'
  | 'subscription.resumed';

/** The `data` every subscription event carries (the outbox adds `status` from the type). */
export function subscriptionEventData(
  sub: Readonly<Subscription>,
  previousStatus: SubscriptionStatus,
  customerReference: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    subscription_id: sub.id,
    previous_status: previousStatus.toLowerCase(),
    subscription_status: sub.status,
    price_id: sub.priceId,
    product_id: sub.productId,
    customer_reference: customerReference,
    amount_minor: sub.amountMinor,
    currency: sub.currency,
    current_period_start: sub.currentPeriodStart,
    next_billing_date: shownNextBillingDate(sub),
    trial_end_date: sub.trialEndDate,
    cancel_at_period_end: sub.cancelAtPeriodEnd,
    ...extra,
  };
}

/**
 * Something happened to a subscription, published inside the transaction
 * that changed it (status changes, renewals, payments of its invoices).
 */
export class SubscriptionFact extends DomainEvent {
  constructor(
    scope: TenantScope,
    readonly type: SubscriptionFactType,
    readonly subscription: Readonly<Subscription>,
    readonly previousStatus: SubscriptionStatus,
    readonly customerReference: string,
    /** Ids of the records involved: invoice_id, payment_id. */
    readonly extra: Record<string, number | null> = {},
  ) {
    super(scope);
  }

  outbox(): OutboxEntry {
    return {
      type: this.type,
      data: subscriptionEventData(
        this.subscription,
        this.previousStatus,
        this.customerReference,
        this.extra,
      ),
    };
  }
}

/** The customer gained or lost benefits through this subscription. */
export class SubscriptionEntitlementsUpdated extends DomainEvent {
  constructor(
    scope: TenantScope,
    readonly subscriptionId: number,
    readonly customerReference: string,
    readonly change: EntitlementChange,
  ) {
    super(scope);
  }

  outbox(): OutboxEntry {
    return {
      type: 'subscription.entitlements_updated',
      data: {
        subscription_id: this.subscriptionId,
        customer_reference: this.customerReference,
        granted: this.change.granted,
        revoked: this.change.revoked,
        entitlements: this.change.entitlements,
      },
    };
  }
}

/**
 * A dunning reminder is due for a subscription's overdue open invoice (the
 * `n`th of 1, 3 and 7 days overdue): the notifications feature writes to the
 * payer if the app's dunningEnabled (decisions 16). Apps are not told.
 */
export class DunningReminderDue extends DomainEvent {
  constructor(
    scope: TenantScope,
    readonly subscription: Readonly<Subscription>,
    readonly invoiceId: number,
    readonly reminder: number,
  ) {
    super(scope);
  }

  outbox(): null {
    return null;
  }
}
