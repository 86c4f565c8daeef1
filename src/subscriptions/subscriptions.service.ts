import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';
import { ClsService } from 'nestjs-cls';

import { AuditService } from '../audit';
import type { Price, Product } from '../catalog';
import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import { Page } from '../common/http/envelope';
import { DEFAULT_PAGE_SIZE, type PageQuery, paginationMeta } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import { type CustomerMessagingFieldsDto, CustomersService } from '../customers';
import type { TenantScope } from '../database/tenant';
import { retryOnConflict } from '../database/transaction';
import { InvoicesService, type InvoiceView } from '../invoices';
import { type Payment, PaymentsService } from '../payments';
import { addDays, dhakaDate, startOfDhakaDay } from './billing-calendar';
import type { Subscription } from './subscription.entity';
import {
  FIRST_INVOICE_DUE_DAYS,
  RENEWAL_DUE_DAYS,
  SubscriptionLifecycle,
} from './subscription-lifecycle';
import type { SubscriptionStatus } from './subscription-state';
import { SubscriptionsRepository } from './subscriptions.repository';

/** Subscriptions processed at once by one replica's scheduler (each holds one connection). */
export const RENEWAL_WORKERS = 4;

/** A subscription and its customer's reference, as responses show it. */
export interface SubscriptionView {
  subscription: Subscription;
  customerReference: string;
}

/**
 * Subscriptions: starting one (a purchase of a RECURRING price), reading,
 * pause / resume / cancel, the scheduler's batch and the TEST advance
 * helper. Every move goes through SubscriptionLifecycle; invoice payments
 * move them through SubscriptionBillingSubscriber.
 */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly lifecycle: SubscriptionLifecycle,
    private readonly customers: CustomersService,
    private readonly payments: PaymentsService,
    private readonly invoices: InvoicesService,
    private readonly clock: Clock,
    private readonly cls: ClsService,
    private readonly audit: AuditService,
  ) {}

  /**
   * Starts a subscription to a RECURRING price with its first invoice, in
   * the caller's transaction. With a trial: TRIALING, benefits at once, the
   * first invoice due when the trial ends. Without: INCOMPLETE until the
   * first invoice (due in 7 days) is paid.
   */
  @Transactional()
  async start(
    scope: TenantScope,
    price: Price,
    product: Product,
    who: CustomerMessagingFieldsDto,
  ): Promise<{ subscription: Subscription; invoice: InvoiceView }> {
    const customer = await this.customers.findOrCreate(scope, who.customerReference, {
      name: who.customerName,
      email: who.customerEmail,
      phone: who.customerPhone,
    });
    const today = dhakaDate(this.clock.nowMs());
    const trialDays = price.trialDays ?? 0;
    const trialEndDate = trialDays > 0 ? addDays(today, trialDays) : null;
    const sub = await this.subscriptions.insert({
      ...scope,
      customerId: customer.id,
      priceId: price.id,
      productId: product.id,
      status: trialEndDate ? 'TRIALING' : 'INCOMPLETE',
      productName: product.name,
      amountMinor: price.amountMinor,
      currency: price.currency,
      interval: price.interval!,
      intervalCount: price.intervalCount!,
      startDate: today,
      trialEndDate,
      trialWillEndSent: false,
      billingAnchor: null,
      periodIndex: 0,
      currentPeriodStart: null,
      nextBillingDate: null,
      firstInvoicePaid: false,
      openInvoiceId: null,
      openInvoiceDueDate: null,
      pastDueSince: null,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      clockOffsetMs: 0,
      nextActionAt: null,
      dunningRemindersSent: 0,
      customerLanguage: who.customerLanguage ?? null,
      notifyCustomer: who.notifyCustomer ?? false,
    });
    const invoice = await this.lifecycle.issueInvoice(
      scope,
      sub,
      trialEndDate ?? addDays(today, FIRST_INVOICE_DUE_DAYS),
    );
    await this.lifecycle.publish(scope, sub, 'subscription.created', sub.status, {
      invoice_id: invoice.invoice.id,
    });
    if (trialEndDate) await this.lifecycle.syncBenefits(scope, sub, this.clock.now());
    // A trial of 3 days or less warns at once.
    await this.lifecycle.runDue(scope, sub);
    return { subscription: sub, invoice };
  }

  async get(scope: TenantScope, id: number): Promise<SubscriptionView> {
    return this.view(scope, await this.subscriptions.get(scope, id));
  }

  async list(
    scope: TenantScope,
    query: PageQuery,
    filter: { status?: SubscriptionStatus; customerReference?: string },
  ): Promise<Page<SubscriptionView>> {
    let customerIds: number[] | undefined;
    if (filter.customerReference) {
      const customer = await this.customers.findByExternalId(scope, filter.customerReference);
      if (!customer) return emptyPage(query);
      customerIds = [customer.id];
    }
    return this.views(
      await this.subscriptions.page(scope, query, { status: filter.status, customerIds }),
    );
  }

  /** Operators: across apps and modes. */
  async adminList(
    query: PageQuery,
    filter: {
      status?: SubscriptionStatus;
      applicationId?: number;
      mode?: Mode;
      customerReference?: string;
      appIds?: number[];
    },
  ): Promise<Page<SubscriptionView>> {
    let customerIds: number[] | undefined;
    if (filter.customerReference) {
      customerIds = await this.customers.idsByExternalId(filter.customerReference, {
        appId: filter.applicationId,
        mode: filter.mode,
      });
      if (customerIds.length === 0) return emptyPage(query);
    }
    return this.views(await this.subscriptions.page(null, query, { ...filter, customerIds }));
  }

  /** TRIALING, ACTIVE or PAST_DUE -> PAUSED: no renewals, benefits revoked. */
  async pause(scope: TenantScope, id: number): Promise<SubscriptionView> {
    return this.change(scope, id, async (sub) => {
      await this.lifecycle.step(scope, sub, 'pause', new Date(this.lifecycle.nowOf(sub)));
      return [];
    });
  }

  /**
   * PAUSED -> the status it would hold now: TRIALING while its trial is
   * ahead; PAST_DUE if its open invoice is overdue; else ACTIVE, and if its
   * period ended meanwhile, a new one starts today with its renewal invoice.
   */
  async resume(scope: TenantScope, id: number): Promise<SubscriptionView> {
    return this.change(scope, id, async (sub) => {
      if (sub.status !== 'PAUSED')
        throw AppError.invalidState(`A ${sub.status.toLowerCase()} subscription cannot resume`);
      const now = this.lifecycle.nowOf(sub);
      const today = dhakaDate(now);
      const at = new Date(now);
      if (sub.trialEndDate && startOfDhakaDay(sub.trialEndDate) > now) {
        await this.lifecycle.step(scope, sub, 'resume_trialing', at);
        return [];
      }
      const trialEndedWhilePaused = !sub.billingAnchor && !!sub.trialEndDate;
      if (trialEndedWhilePaused) this.lifecycle.startPeriods(sub, sub.trialEndDate!);
      // Never ACTIVE while the first invoice is unpaid: a trial that ended is PAST_DUE until it is.
      const firstUnpaid = !sub.firstInvoicePaid && !!sub.trialEndDate;
      if ((sub.openInvoiceDueDate && sub.openInvoiceDueDate < today) || firstUnpaid) {
        const since = sub.pastDueSince;
        await this.lifecycle.step(scope, sub, 'resume_past_due', at);
        sub.pastDueSince = since ?? at;
        return [];
      }
      await this.lifecycle.step(scope, sub, 'resume_active', at);
      if (!sub.billingAnchor) this.lifecycle.startPeriods(sub, today);
      const periodEnded =
        trialEndedWhilePaused || (!!sub.nextBillingDate && sub.nextBillingDate <= today);
      if (!periodEnded) return [];
      // Set to cancel at period end, and that end passed while paused: CANCELED now, no renewal.
      if (sub.cancelAtPeriodEnd) return this.lifecycle.cancel(scope, sub, 'period_end_cancel', at);
      // One open invoice at a time: a new period starts only once the last one is settled.
      if (sub.openInvoiceId !== null) return [];
      if (sub.nextBillingDate && sub.nextBillingDate <= today) {
        this.lifecycle.startPeriods(sub, today);
        await this.lifecycle.issueInvoice(scope, sub, addDays(today, RENEWAL_DUE_DAYS));
      }
      return [];
    });
  }

  /** Now: CANCELED, benefits revoked, open invoice voided. At period end: flagged, status unchanged. */
  async cancel(scope: TenantScope, id: number, atPeriodEnd: boolean): Promise<SubscriptionView> {
    return this.change(scope, id, async (sub) => {
      if (atPeriodEnd) {
        await this.lifecycle.step(scope, sub, 'cancel_at_period_end', this.clock.now());
        sub.cancelAtPeriodEnd = true;
        // No status changes, so no event tells of it: an acting admin's change is audited here.
        await this.audit.record({
          action: 'subscription.cancel_scheduled',
          targetType: 'subscription',
          targetId: sub.id,
          after: { applicationId: scope.appId, mode: scope.mode, cancelAtPeriodEnd: true },
          adminOnly: true,
        });
        return [];
      }
      return this.lifecycle.cancel(scope, sub, 'cancel_now', new Date(this.lifecycle.nowOf(sub)));
    });
  }

  /**
   * TEST helper: the subscription's own clock jumps to its next scheduled
   * moment and everything due up to it runs, as the scheduler would.
   * 409 when nothing is scheduled (PAUSED, CANCELED).
   */
  async advance(scope: TenantScope, id: number): Promise<SubscriptionView> {
    return this.change(scope, id, async (sub) => {
      const moment = this.lifecycle.nextMoment(sub);
      if (!moment)
        throw AppError.invalidState(
          `Nothing is scheduled for a ${sub.status.toLowerCase()} subscription`,
        );
      sub.clockOffsetMs += Math.max(0, moment.at - this.lifecycle.nowOf(sub));
      return [];
    });
  }

  /**
   * The scheduler's work: every subscription whose next moment has come,
   * each in its own short transaction, claimed with FOR UPDATE SKIP LOCKED
   * (replicas never process one twice). How many were processed.
   */
  async runDueBatch(limit = 500): Promise<number> {
    const now = this.clock.now();
    const queue = await this.subscriptions.dueIds(now, limit);
    let processed = 0;
    // A few at a time, each worker in its own context (its own transaction).
    const worker = () =>
      this.cls.run(async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          const cancelled = await this.processIfDue(id, now);
          if (cancelled === null) continue;
          processed++;
          await this.payments.closeCheckouts(cancelled);
        }
      });
    await Promise.all(Array.from({ length: Math.min(RENEWAL_WORKERS, queue.length) }, worker));
    return processed;
  }

  @Transactional()
  private async processIfDue(id: number, now: Date): Promise<Payment[] | null> {
    await this.lockOpenInvoice(id);
    const sub = await this.subscriptions.lockIfDue(id, now);
    if (!sub) return null;
    return this.lifecycle.runDue({ appId: sub.appId, mode: sub.mode }, sub);
  }

  /**
   * Locks the subscription (in the lock order, `lockOpenInvoice`), applies
   * `move`, runs whatever has come due and saves, in one transaction (run
   * again on a serialization failure or a deadlock, which the lock order
   * leaves only to a renewal invoice opened between the look and the lock);
   * then closes the checkouts of payments that voided invoices cancelled
   * (no gateway call inside the transaction).
   */
  private async change(
    scope: TenantScope,
    id: number,
    move: (sub: Subscription) => Promise<Payment[]>,
  ): Promise<SubscriptionView> {
    const { view, cancelled } = await retryOnConflict(() => this.changeInTx(scope, id, move));
    await this.payments.closeCheckouts(cancelled);
    return view;
  }

  @Transactional()
  private async changeInTx(
    scope: TenantScope,
    id: number,
    move: (sub: Subscription) => Promise<Payment[]>,
  ): Promise<{ view: SubscriptionView; cancelled: Payment[] }> {
    await this.lockOpenInvoice(id, scope);
    const sub = await this.subscriptions.lock(scope, id);
    const cancelled = await move(sub);
    cancelled.push(...(await this.lifecycle.runDue(scope, sub)));
    return { view: await this.view(scope, sub), cancelled };
  }

  /**
   * The one lock order (docs/architecture.md, "The money core") is payments, their
   * invoice, its subscription: the order a capture takes them. A change
   * that starts from the subscription (cancel, pause, resume, advance, the
   * renewal sweep) may void or settle its open invoice, so it first locks
   * that invoice's PENDING payments and the invoice (looked up without a
   * lock), then the subscription: a capture of that invoice and the change
   * queue one behind the other instead of deadlocking.
   */
  private async lockOpenInvoice(id: number, scope?: TenantScope): Promise<void> {
    const seen = await this.subscriptions.openInvoiceOf(id);
    if (seen?.openInvoiceId == null) return;
    // Another app's id: lock nothing of it (the subscription's own lock answers 404).
    if (scope && (seen.scope.appId !== scope.appId || seen.scope.mode !== scope.mode)) return;
    await this.invoices.lockInOrder(seen.scope, seen.openInvoiceId);
  }

  private async view(scope: TenantScope, sub: Subscription): Promise<SubscriptionView> {
    const customer = await this.customers.get(scope, sub.customerId);
    return { subscription: sub, customerReference: customer.externalId };
  }

  private async views(page: Page<Subscription>): Promise<Page<SubscriptionView>> {
    const customers = await this.customers.byIds(page.items.map((s) => s.customerId));
    return new Page(
      page.items.map((subscription) => ({
        subscription,
        customerReference: customers.get(subscription.customerId)!.externalId,
      })),
      page.pagination,
    );
  }
}

function emptyPage<T>(query: PageQuery): Page<T> {
  return new Page<T>([], paginationMeta(query.page ?? 0, query.size ?? DEFAULT_PAGE_SIZE, 0));
}
