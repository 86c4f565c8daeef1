import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock/clock';
import { DomainEventBus } from '../common/domain-events';
import { AppError } from '../common/errors/app-error';
import { CustomersService } from '../customers';
import type { TenantScope } from '../database/tenant';
import { EntitlementsService } from '../entitlements';
import { InvoicesService, type InvoiceView } from '../invoices';
import type { Payment } from '../payments';
import { addDays, DAY_MS, dhakaDate, periodBoundary, startOfDhakaDay } from './billing-calendar';
import type { Subscription } from './subscription.entity';
import {
  DunningReminderDue,
  SubscriptionEntitlementsUpdated,
  SubscriptionFact,
  SubscriptionFactType,
} from './subscription-events';
import { grantsBenefits, subscriptionStep, SubscriptionTrigger } from './subscription-state';
import { SubscriptionsRepository } from './subscriptions.repository';

/** A renewal invoice is due this many days after its period starts. */
export const RENEWAL_DUE_DAYS = 3;
/** A first invoice without a trial is due this many days after the purchase. */
export const FIRST_INVOICE_DUE_DAYS = 7;
/** Past due (or INCOMPLETE past its first invoice's due date) this long: canceled. */
export const DUNNING_DAYS = 14;
/** `subscription.trial_will_end` fires this long before the trial ends. */
export const TRIAL_WARNING_DAYS = 3;
/** Dunning reminders: this many days after the open invoice became overdue (decisions 16). */
export const DUNNING_REMINDER_DAYS = [1, 3, 7] as const;

export type MomentKind =
  | 'trial_will_end'
  | 'trial_end'
  | 'invoice_overdue'
  | 'period_end'
  | 'dunning_exhausted'
  | 'dunning_reminder';

export interface Moment {
  kind: MomentKind;
  /** In the subscription's own time (epoch ms). */
  at: number;
}

/**
 * The subscription engine: every path that moves a subscription (the API,
 * invoice settlement, the scheduler, the advance helper) goes through
 * `step`, which consults the state table, keeps entitlements in step with
 * the status and publishes the facts, all inside the caller's transaction
 * with the subscription row locked. Gateway calls never happen here: voided
 * invoices' payments come back for the caller to close after commit.
 *
 * Each subscription keeps its own clock (`clockOffsetMs`, only ever moved
 * by the TEST advance helper); `nextActionAt` is its next moment in wall
 * time, which is what the scheduler's index reads.
 */
@Injectable()
export class SubscriptionLifecycle {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly invoices: InvoicesService,
    private readonly entitlements: EntitlementsService,
    private readonly customers: CustomersService,
    private readonly bus: DomainEventBus,
    private readonly clock: Clock,
  ) {}

  /** The subscription's own "now" (epoch ms). */
  nowOf(sub: Subscription): number {
    return this.clock.nowMs() + sub.clockOffsetMs;
  }

  todayOf(sub: Subscription): string {
    return dhakaDate(this.nowOf(sub));
  }

  /** The earliest scheduled moment ahead of (or due for) the subscription; null when nothing is scheduled. */
  nextMoment(sub: Subscription): Moment | null {
    const candidates: Moment[] = [];
    const overdueAt = (due: string) => startOfDhakaDay(addDays(due, 1));
    switch (sub.status) {
      case 'TRIALING': {
        const end = startOfDhakaDay(sub.trialEndDate!);
        if (!sub.trialWillEndSent)
          candidates.push({ kind: 'trial_will_end', at: end - TRIAL_WARNING_DAYS * DAY_MS });
        candidates.push({ kind: 'trial_end', at: end });
        break;
      }
      case 'INCOMPLETE':
        if (sub.openInvoiceDueDate) {
          candidates.push({
            kind: 'dunning_exhausted',
            at: overdueAt(sub.openInvoiceDueDate) + DUNNING_DAYS * DAY_MS,
          });
          this.pushReminder(candidates, sub, overdueAt(sub.openInvoiceDueDate));
        }
        break;
      case 'ACTIVE':
        if (sub.openInvoiceId !== null && sub.openInvoiceDueDate)
          candidates.push({ kind: 'invoice_overdue', at: overdueAt(sub.openInvoiceDueDate) });
        // One open invoice at a time: the next period waits until this one is settled.
        else if (sub.nextBillingDate)
          candidates.push({ kind: 'period_end', at: startOfDhakaDay(sub.nextBillingDate) });
        break;
      case 'PAST_DUE':
        if (sub.pastDueSince) {
          candidates.push({
            kind: 'dunning_exhausted',
            at: sub.pastDueSince.getTime() + DUNNING_DAYS * DAY_MS,
          });
          this.pushReminder(candidates, sub, sub.pastDueSince.getTime());
        }
        if (sub.cancelAtPeriodEnd && sub.nextBillingDate)
          candidates.push({ kind: 'period_end', at: startOfDhakaDay(sub.nextBillingDate) });
        break;
      default:
        break;
    }
    if (candidates.length === 0) return null;
    return candidates.reduce((a, b) => (b.at < a.at ? b : a));
  }

  /** The next dunning reminder of the open invoice, overdue since `overdueSince` (epoch ms). */
  private pushReminder(candidates: Moment[], sub: Subscription, overdueSince: number): void {
    const days = DUNNING_REMINDER_DAYS[sub.dunningRemindersSent];
    if (sub.openInvoiceId !== null && days !== undefined)
      candidates.push({ kind: 'dunning_reminder', at: overdueSince + days * DAY_MS });
  }

  /**
   * Runs every moment due up to the subscription's now, in order, then
   * saves it with its next moment scheduled. Returns payments cancelled by
   * voided invoices (close their checkouts after commit).
   */
  async runDue(scope: TenantScope, sub: Subscription): Promise<Payment[]> {
    const cancelled: Payment[] = [];
    for (let guard = 0; guard < 1000; guard++) {
      const moment = this.nextMoment(sub);
      if (!moment || moment.at > this.nowOf(sub)) break;
      cancelled.push(...(await this.applyMoment(scope, sub, moment)));
    }
    await this.save(sub);
    return cancelled;
  }

  /** Saves with `nextActionAt` recomputed from its next moment. */
  async save(sub: Subscription): Promise<Subscription> {
    const next = this.nextMoment(sub);
    sub.nextActionAt = next ? new Date(next.at - sub.clockOffsetMs) : null;
    sub.updatedAt = this.clock.now();
    return this.subscriptions.update(sub);
  }

  private async applyMoment(
    scope: TenantScope,
    sub: Subscription,
    moment: Moment,
  ): Promise<Payment[]> {
    const at = new Date(moment.at);
    switch (moment.kind) {
      case 'trial_will_end':
        sub.trialWillEndSent = true;
        await this.publish(scope, sub, 'subscription.trial_will_end', sub.status);
        return [];
      case 'trial_end':
        this.startPeriods(sub, sub.trialEndDate!);
        if (sub.cancelAtPeriodEnd) return this.cancel(scope, sub, 'period_end_cancel', at);
        if (sub.firstInvoicePaid) {
          await this.step(scope, sub, 'trial_end_paid', at);
        } else {
          sub.pastDueSince = at;
          await this.step(scope, sub, 'trial_end_unpaid', at, { invoice_id: sub.openInvoiceId });
        }
        return [];
      case 'invoice_overdue':
        sub.pastDueSince = at;
        await this.step(scope, sub, 'invoice_overdue', at, { invoice_id: sub.openInvoiceId });
        return [];
      case 'dunning_exhausted':
        return this.cancel(scope, sub, 'dunning_exhausted', at);
      case 'dunning_reminder':
        // A fact for the notifications (decisions 16); the status does not change.
        sub.dunningRemindersSent += 1;
        await this.bus.publish(
          new DunningReminderDue(scope, sub, sub.openInvoiceId!, sub.dunningRemindersSent),
        );
        return [];
      case 'period_end':
        if (sub.cancelAtPeriodEnd) return this.cancel(scope, sub, 'period_end_cancel', at);
        await this.renew(scope, sub);
        return [];
    }
  }

  /** The first period begins on `date`: periods are counted from it. */
  startPeriods(sub: Subscription, date: string): void {
    sub.billingAnchor = date;
    sub.periodIndex = 0;
    sub.currentPeriodStart = date;
    sub.nextBillingDate = periodBoundary(date, sub.interval, sub.intervalCount, 1);
  }

  /** The next period begins: a renewal invoice for it, due RENEWAL_DUE_DAYS later. */
  async renew(scope: TenantScope, sub: Subscription): Promise<void> {
    this.assertStep(sub, 'renew');
    sub.periodIndex += 1;
    sub.currentPeriodStart = sub.nextBillingDate;
    sub.nextBillingDate = periodBoundary(
      sub.billingAnchor!,
      sub.interval,
      sub.intervalCount,
      sub.periodIndex + 1,
    );
    await this.issueInvoice(scope, sub, addDays(sub.currentPeriodStart!, RENEWAL_DUE_DAYS));
  }

  /** Issues the subscription's invoice for its current period (or its first, before any period). */
  async issueInvoice(scope: TenantScope, sub: Subscription, dueDate: string): Promise<InvoiceView> {
    const customer = await this.customers.get(scope, sub.customerId);
    const period = sub.currentPeriodStart
      ? ` (${sub.currentPeriodStart} to ${addDays(sub.nextBillingDate!, -1)})`
      : '';
    const view = await this.invoices.create(
      scope,
      {
        customerReference: customer.externalId,
        lineItems: [
          { description: `${sub.productName}${period}`, qty: 1, unitAmountMinor: sub.amountMinor },
        ],
        currency: sub.currency,
        dueDate,
        customerLanguage: sub.customerLanguage ?? undefined,
        notifyCustomer: sub.notifyCustomer,
      },
      { priceId: sub.priceId, subscriptionId: sub.id },
    );
    sub.openInvoiceId = view.invoice.id;
    sub.openInvoiceDueDate = view.invoice.dueDate;
    sub.dunningRemindersSent = 0;
    return view;
  }

  /** CANCELED now: benefits revoked, the open invoice voided (if nothing was paid on it). */
  async cancel(
    scope: TenantScope,
    sub: Subscription,
    trigger: SubscriptionTrigger,
    at: Date,
  ): Promise<Payment[]> {
    this.assertStep(sub, trigger);
    let cancelled: Payment[] = [];
    const invoiceId = sub.openInvoiceId;
    if (invoiceId !== null) {
      try {
        cancelled = (await this.invoices.voidLocked(scope, invoiceId)).cancelled;
        sub.openInvoiceId = null;
        sub.openInvoiceDueDate = null;
      } catch (err) {
        // A partly paid invoice cannot be voided: it stays open, for the record.
        if (!(err instanceof AppError)) throw err;
      }
    }
    sub.canceledAt = at;
    sub.cancelAtPeriodEnd = false;
    await this.step(scope, sub, trigger, at, { invoice_id: invoiceId });
    return cancelled;
  }

  /**
   * Takes one step of the state table (409 INVALID_STATE when it is not
   * allowed), grants or revokes benefits when the status starts or stops
   * granting them, and publishes the status event.
   */
  async step(
    scope: TenantScope,
    sub: Subscription,
    trigger: SubscriptionTrigger,
    at: Date,
    extra: Record<string, number | null> = {},
  ): Promise<void> {
    const step = this.assertStep(sub, trigger);
    const previous = sub.status;
    sub.status = step.next;
    if (step.next !== 'PAST_DUE') sub.pastDueSince = null;
    if (step.event) await this.publish(scope, sub, step.event, previous, extra);
    if (grantsBenefits(step.next) !== grantsBenefits(previous) || trigger.startsWith('resume_'))
      await this.syncBenefits(scope, sub, at);
  }

  /** Grants (TRIALING, ACTIVE) or revokes (any other status) the product's benefits. */
  async syncBenefits(scope: TenantScope, sub: Subscription, at: Date): Promise<void> {
    const change = grantsBenefits(sub.status)
      ? await this.entitlements.grantForSubscription(scope, sub, at)
      : await this.entitlements.revokeForSubscription(scope, sub, at);
    if (change.granted.length === 0 && change.revoked.length === 0) return;
    await this.bus.publish(
      new SubscriptionEntitlementsUpdated(
        scope,
        sub.id,
        await this.referenceOf(scope, sub),
        change,
      ),
    );
  }

  async publish(
    scope: TenantScope,
    sub: Subscription,
    type: SubscriptionFactType,
    previous: Subscription['status'],
    extra: Record<string, number | null> = {},
  ): Promise<void> {
    // A snapshot: later steps in the same transaction must not change what this fact says.
    const snapshot = { ...sub };
    await this.bus.publish(
      new SubscriptionFact(
        scope,
        type,
        snapshot,
        previous,
        await this.referenceOf(scope, sub),
        extra,
      ),
    );
  }

  private assertStep(sub: Subscription, trigger: SubscriptionTrigger) {
    const step = subscriptionStep(sub.status, trigger);
    if (!step) {
      throw AppError.invalidState(
        `A ${sub.status.toLowerCase()} subscription cannot ${trigger.replace(/_/g, ' ')}`,
      );
    }
    return step;
  }

  private async referenceOf(scope: TenantScope, sub: Subscription): Promise<string> {
    return (await this.customers.get(scope, sub.customerId)).externalId;
  }
}
