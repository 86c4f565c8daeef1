import { Injectable, Logger } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AppsService } from '../apps';
import { AuditService } from '../audit';
import { Clock } from '../common/clock/clock';
import { DomainEventBus } from '../common/domain-events';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { Page } from '../common/http/envelope';
import type { PageQuery } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import { CustomersService } from '../customers';
import { isDatabaseError } from '../database/database-errors';
import type { TenantScope } from '../database/tenant';
import { gatewayErrorText, type GatewayRefund, GatewayRegistry } from '../gateways';
import { IdempotencyService } from '../idempotency';
import { type Payment, PaymentsService } from '../payments';
import { Refund, RefundStatus } from './refund.entity';
import { RefundFailed, RefundPending, RefundSucceeded } from './refund-events';
import { RefundsRepository } from './refunds.repository';

const REFUND_CREATED = 'refund_created';
/** A refund sent to its gateway this long ago and still PENDING is asked about again (at first). */
export const REFUND_RECHECK_MS = 60_000;
/**
 * How long one trip to the gateway holds a refund against other callers; a
 * trip renews it when it sends, and its send gives up starting (or waiting)
 * REFUND_SEND_MARGIN_MS before it ends, so a send never outlives its claim.
 * A trip interrupted by a crash or a lost connection is taken again once it
 * ends: with the re-check every REFUND_RECHECK_TICK_MS, within 2 minutes
 * (decisions section 13 as amended).
 */
export const REFUND_CLAIM_MS = 90_000;
/** How long before its claim ends a send stops (its answer then counts as lost and is asked about). */
export const REFUND_SEND_MARGIN_MS = 15_000;
/** Sent this long ago and not decided by the gateway: FAILED (decisions section 7). */
export const REFUND_DECIDE_MS = 72 * 3_600_000;
/** Sends at most, each only after the gateway said it has no such refund. */
export const REFUND_MAX_SENDS = 5;

/** Joma's reference for a refund at the gateway (SSLCommerz `refe_id`, bKash `sku`). */
export const refundReference = (id: number): string => `rfd_${id}`;

/**
 * Refunds. Creating one is three steps, like a payment: a short transaction
 * that locks the payment, checks what is still refundable and writes the
 * refund PENDING (with its `refund.pending` event and the ledger's
 * reservation); the gateway call with no transaction open; a short
 * transaction that applies the gateway's answer. A gateway that answers
 * "processing" leaves the refund PENDING for `recheckPending` to settle.
 * A gateway without a refund call (no RefundCapability: Nagad, decisions
 * section 22) has its refunds opened `manual`: never sent, they stay
 * PENDING until an operator completes them (`completeManual`).
 */
@Injectable()
export class RefundsService {
  private readonly logger = new Logger('Refunds');

  constructor(
    private readonly refunds: RefundsRepository,
    private readonly payments: PaymentsService,
    private readonly apps: AppsService,
    private readonly customers: CustomersService,
    private readonly gateways: GatewayRegistry,
    private readonly idempotency: IdempotencyService,
    private readonly bus: DomainEventBus,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  /**
   * Refunds `amountMinor` (default: all that is still refundable) of a
   * SUCCEEDED payment. 409 for any other payment; 422 beyond what is left
   * (refunds that did not fail never add up to more than the capture, even
   * when requests race). Above the app's approval threshold it waits,
   * PENDING, for an operator.
   */
  async create(
    scope: TenantScope,
    paymentId: number,
    input: { amountMinor?: number; reason?: string },
  ): Promise<Refund> {
    const point = this.idempotency.recovered<{ refundId: number }>(REFUND_CREATED);
    const refund = point
      ? await this.refunds.get(scope, point.refundId)
      : await this.openPending(scope, paymentId, input);
    if (refund.status !== 'PENDING' || refund.approvalRequired || refund.manual) return refund;
    return this.submit(refund);
  }

  @Transactional()
  private async openPending(
    scope: TenantScope,
    paymentId: number,
    input: { amountMinor?: number; reason?: string },
  ): Promise<Refund> {
    const payment = await this.payments.lockForRefund(scope, paymentId);
    const totals = await this.refunds.activeTotals(payment.id);
    const refundable = payment.amountMinor - totals.active;
    const amount = input.amountMinor ?? refundable;
    if (refundable <= 0 || amount > refundable) {
      throw new AppError(
        ErrorCode.AMOUNT_OUT_OF_RANGE,
        refundable <= 0
          ? `Payment ${payment.id} has nothing left to refund`
          : `amountMinor ${amount} is more than the ${refundable} still refundable on payment ${payment.id}`,
        [{ field: 'amountMinor', message: `at most ${Math.max(refundable, 0)}` }],
      );
    }
    this.withinRefundWindow(payment);
    const app = await this.apps.get(scope.appId);
    // Cumulative (decisions section 7): splitting a refund into parts cannot dodge approval.
    const approvalRequired = totals.requested + amount > app.refundApprovalThresholdMinor;
    const refund = await this.open(payment, amount, {
      reason: input.reason ?? null,
      approvalRequired,
      automatic: false,
    });
    await this.idempotency.checkpoint(REFUND_CREATED, { refundId: refund.id });
    return refund;
  }

  /** 422 for a payment its gateway no longer refunds (bKash: 15 days after the capture). */
  private withinRefundWindow(payment: Readonly<Payment>): void {
    const days = this.gateways.get(payment.gateway).refunds?.refundWindowDays;
    if (!days || !payment.succeededAt) return;
    const until = payment.succeededAt.getTime() + days * 86_400_000;
    if (this.clock.nowMs() <= until) return;
    throw new AppError(
      ErrorCode.AMOUNT_OUT_OF_RANGE,
      `The ${payment.gateway} gateway refunds a payment only within ${days} days of its capture; payment ${payment.id} was captured on ${payment.succeededAt.toISOString().slice(0, 10)}. Refund the customer outside Joma.`,
      [{ field: 'paymentId', message: `refund window of ${days} days has passed` }],
    );
  }

  /**
   * Refunds money the service must give back by itself (a capture's excess,
   * decisions section 13), in the caller's transaction with the payment
   * locked: no approval, not counted toward the threshold. The re-check
   * sends it to the gateway after the commit, within a minute.
   */
  openAutomatic(payment: Readonly<Payment>, amountMinor: number, reason: string): Promise<Refund> {
    return this.open(payment, amountMinor, { reason, approvalRequired: false, automatic: true });
  }

  /**
   * Writes a PENDING refund of a locked payment, with its `refund.pending`
   * event: `manual` when its gateway has no refund call (decisions 22).
   */
  private async open(
    payment: Readonly<Payment>,
    amountMinor: number,
    how: { reason: string | null; approvalRequired: boolean; automatic: boolean },
  ): Promise<Refund> {
    const scope = { appId: payment.appId, mode: payment.mode };
    const refund = await this.refunds.insert({
      ...scope,
      paymentId: payment.id,
      invoiceId: payment.invoiceId,
      customerId: payment.customerId,
      amountMinor,
      currency: payment.currency,
      status: 'PENDING',
      ...how,
      manual: this.isManual(payment.gateway),
      approvedAt: null,
      gateway: payment.gateway,
      gatewayRefundId: null,
      submittedAt: null,
      sendAttempts: 0,
      recheckAt: null,
      claimedUntil: null,
      failureReason: null,
    });
    await this.publish(new RefundPending(scope, refund, null, await this.referenceOf(refund)));
    return refund;
  }

  /** Whether the gateway has no refund call (a gateway this deployment no longer knows is left to fail at its trip). */
  private isManual(gateway: string): boolean {
    return this.gateways.has(gateway) && !this.gateways.get(gateway).refunds;
  }

  /**
   * Operators: sends a refund that waited for approval to its gateway (a
   * manual one stays PENDING, now free to be completed by an operator).
   */
  async approve(id: number): Promise<Refund> {
    const refund = await this.approveInTx(id);
    return refund.manual ? refund : this.submit(refund);
  }

  @Transactional()
  private async approveInTx(id: number): Promise<Refund> {
    const refund = await this.lockAwaitingApproval(id);
    refund.approvedAt = this.clock.now();
    const saved = await this.refunds.save(refund);
    await this.audit.record({
      action: 'refund.approved',
      targetType: 'refund',
      targetId: id,
      after: { amountMinor: refund.amountMinor, paymentId: refund.paymentId },
    });
    return saved;
  }

  /** Operators: refuses a refund that waited for approval (FAILED, reservation released). */
  @Transactional()
  async reject(id: number): Promise<Refund> {
    const refund = await this.lockAwaitingApproval(id);
    const saved = await this.finish(
      refund,
      {
        refundId: '',
        status: 'failed',
      },
      'Rejected by an operator',
    );
    await this.audit.record({
      action: 'refund.rejected',
      targetType: 'refund',
      targetId: id,
      after: { amountMinor: refund.amountMinor, paymentId: refund.paymentId },
    });
    return saved;
  }

  /**
   * Operators: a manual refund (its gateway has no refund call, decisions
   * section 22) that they paid back outside Joma is SUCCEEDED, by the same
   * path a gateway's "succeeded" takes (ledger, `refund.succeeded`, the
   * payment's refunded total), audited, in one transaction. 409 unless it
   * is PENDING, manual and not awaiting approval; the row lock makes a
   * second, concurrent completion see it SUCCEEDED (409).
   */
  @Transactional()
  async completeManual(
    id: number,
    input: { gatewayRefundId?: string; note?: string },
  ): Promise<Refund> {
    const refund = await this.refunds.lockById(id);
    if (!refund) throw AppError.notFound('Refund');
    if (refund.status !== 'PENDING')
      throw AppError.invalidState(
        `A ${refund.status.toLowerCase()} refund is decided: only a PENDING manual refund can be completed`,
      );
    if (!refund.manual)
      throw AppError.invalidState(
        `This refund is not manual: the ${refund.gateway} gateway refunds it, and only the gateway's answer completes it (POST /api/v1/admin/refunds/${id}/check asks it now)`,
      );
    if (refund.approvalRequired && !refund.approvedAt)
      throw AppError.invalidState('This refund awaits approval: approve or reject it first');
    const saved = await this.finish(
      refund,
      { refundId: input.gatewayRefundId ?? '', status: 'succeeded' },
      '',
    );
    await this.audit.record({
      action: 'refund.completed',
      targetType: 'refund',
      targetId: id,
      after: {
        amountMinor: refund.amountMinor,
        paymentId: refund.paymentId,
        gatewayRefundId: input.gatewayRefundId ?? null,
        ...(input.note !== undefined ? { note: input.note } : {}),
      },
    });
    return saved;
  }

  get(scope: TenantScope, id: number): Promise<Refund> {
    return this.refunds.get(scope, id);
  }

  async ofPayment(scope: TenantScope, paymentId: number): Promise<Refund[]> {
    await this.payments.get(scope, paymentId);
    return this.refunds.ofPayment(scope, paymentId);
  }

  adminList(
    query: PageQuery,
    filter: {
      status?: RefundStatus;
      applicationId?: number;
      mode?: Mode;
      appIds?: number[];
      awaitingApproval?: 'true' | 'false';
    },
  ): Promise<Page<Refund>> {
    return this.refunds.page(query, filter);
  }

  /** The app a refund belongs to, or null when there is no such refund (the scope check of admin routes). */
  async appOf(id: number): Promise<number | null> {
    return (await this.refunds.byId(id))?.appId ?? null;
  }

  /**
   * The one recovery path of refunds, however far they got: those sent and
   * still PENDING (answer lost, or the gateway still processing), and those
   * free to go but never sent (automatic ones, and ones whose request
   * stopped between its steps after opening or approving them). Asks the
   * gateway or sends, and applies the answer. How many were settled.
   */
  async recheckPending(limit = 100): Promise<number> {
    let settled = 0;
    for (const id of await this.refunds.awaitingGateway(this.clock.now(), limit)) {
      const refund = await this.refunds.byId(id);
      if (!refund || refund.status !== 'PENDING') continue;
      const after = await this.trip(refund);
      if (after && after.status !== 'PENDING') settled++;
    }
    return settled;
  }

  /**
   * Operators: asks the gateway about a PENDING refund now instead of at the
   * re-check's next turn (or sends it, if it was never sent and is free to
   * go), by the same one path, so it is still never sent twice: a trip
   * already under way is not doubled. 409 unless PENDING and free to go,
   * and for a manual refund (there is no gateway to ask).
   */
  async checkNow(id: number): Promise<Refund> {
    const refund = await this.refunds.byId(id);
    if (!refund) throw AppError.notFound('Refund');
    if (refund.status !== 'PENDING' || (refund.approvalRequired && !refund.approvedAt))
      throw AppError.invalidState(
        refund.status === 'PENDING'
          ? 'This refund awaits approval: approve or reject it'
          : `A ${refund.status.toLowerCase()} refund is decided`,
      );
    if (refund.manual) throw manualRefund(refund);
    return (await this.trip(refund, true)) ?? (await this.refunds.byId(id))!;
  }

  /**
   * Takes the refund to its gateway with no transaction open, then applies
   * the answer in a short one. At most once per refund at the gateway
   * (decisions section 7): a refund that was sent before is first asked
   * about, and sent again only when the gateway says it has no such refund.
   * A lost or unclear answer leaves it PENDING, asked about again later.
   */
  private async submit(refund: Refund): Promise<Refund> {
    return (await this.trip(refund)) ?? (await this.refunds.byId(refund.id))!;
  }

  /**
   * One trip to the gateway (see `submit`); null when another caller holds
   * the refund. A manual refund never goes; one opened before its gateway
   * lost its refund call becomes manual here rather than failing.
   */
  private async trip(refund: Refund, now = false): Promise<Refund | null> {
    if (refund.manual) return refund;
    const gateway = this.gateways.get(refund.gateway);
    if (!gateway.refunds) return this.makeManual(refund.id);
    const payment = await this.payments.get(refund, refund.paymentId);
    if (!payment.gatewaySessionId) {
      return this.applyAnswer(
        refund.id,
        { refundId: '', status: 'failed' },
        `The ${refund.gateway} gateway cannot refund a payment without its checkout session`,
      );
    }
    const claimed = await this.claim(refund.id, now);
    if (!claimed || claimed.status !== 'PENDING') return claimed;
    // The claim's end is its token: only the trip that set it may renew or end it.
    let token = claimed.claimedUntil!.getTime();
    const request = {
      sessionId: payment.gatewaySessionId,
      txnId: payment.gatewayTxnId ?? '',
      amountMinor: claimed.amountMinor,
      reference: refundReference(claimed.id),
    };
    let step = 'status query';
    try {
      const ctx = await this.gateways.context(claimed, claimed.gateway);
      if (claimed.sendAttempts > 0) {
        const known = await gateway.refunds.queryRefund(
          {
            ...request,
            gatewayRefundId: claimed.gatewayRefundId,
            otherRefundIds: await this.refunds.otherGatewayIds(claimed.paymentId, claimed.id),
          },
          ctx,
        );
        // An answer (a refund's status, or a definite "no such refund"): the gateway works for this app.
        await this.gateways.noteSuccess(claimed, claimed.gateway);
        if (known)
          return await this.applyAnswer(claimed.id, known, 'Refused by the gateway', token);
        if (claimed.sendAttempts >= REFUND_MAX_SENDS) {
          this.logger.warn(
            `refund ${claimed.id}: the gateway has no such refund after ${claimed.sendAttempts} sends; not sent again`,
          );
          return await this.release(claimed.id, token);
        }
      }
      step = 'send';
      const sending = await this.markSent(claimed.id, token);
      if (sending === null) {
        // This trip outlived its claim and another took the refund over: it sends nothing.
        this.logger.warn(
          `refund ${claimed.id}: its claim ended before the send; left to the trip that holds it`,
        );
        return await this.refunds.byId(claimed.id);
      }
      token = sending;
      // Gives up before the claim ends: no other trip can ask (and send) while this send is out.
      const deadline = AbortSignal.timeout(REFUND_CLAIM_MS - REFUND_SEND_MARGIN_MS);
      const answer = await gateway.refunds.refund(
        { ...request, reason: claimed.reason },
        { ...ctx, signal: ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline },
      );
      await this.gateways.noteSuccess(claimed, claimed.gateway);
      if (claimed.sendAttempts > 0 && answer.status === 'failed') {
        // A re-send refused may be the gateway refusing a duplicate of the
        // first send, which it did make: only its status query decides.
        this.logger.warn(
          `refund ${claimed.id}: send ${claimed.sendAttempts + 1} refused (${answer.failureReason ?? 'no reason'}); the gateway will be asked again`,
        );
        return await this.release(claimed.id, token);
      }
      return await this.applyAnswer(claimed.id, answer, 'Refused by the gateway', token);
    } catch (err) {
      const reason = gatewayErrorText(err);
      this.logger.warn(
        `refund ${claimed.id}: ${step} got no clear answer (${reason}); the gateway will be asked again`,
      );
      // Joma's own database failing is not the gateway's.
      if (!isDatabaseError(err)) await this.gateways.noteError(claimed, claimed.gateway, reason);
      return this.release(claimed.id, token);
    }
  }

  /**
   * Claims the refund for one trip to the gateway (no other caller, a second
   * replica's re-check included, takes it until the trip ends or
   * REFUND_CLAIM_MS passes): null when it is not due or no longer PENDING. A refund sent
   * REFUND_DECIDE_MS ago that the gateway never decided ends FAILED here.
   */
  @Transactional()
  private async claim(id: number, skipPause = false): Promise<Refund | null> {
    const refund = await this.refunds.lockById(id);
    if (!refund || refund.status !== 'PENDING') return null;
    const now = this.clock.nowMs();
    if (refund.claimedUntil && refund.claimedUntil.getTime() > now) return null;
    if (!skipPause && refund.recheckAt && refund.recheckAt.getTime() > now) return null;
    if (refund.submittedAt && now - refund.submittedAt.getTime() >= REFUND_DECIDE_MS) {
      return this.finish(
        refund,
        { refundId: '', status: 'failed' },
        `The gateway did not decide this refund within 72 hours of its last send (${refund.sendAttempts} sends); check it at the gateway before refunding again`,
      );
    }
    refund.claimedUntil = new Date(now + REFUND_CLAIM_MS);
    return this.refunds.save(refund);
  }

  /**
   * Records a send before it leaves (so a lost answer is asked about, never
   * blindly re-sent) and renews the trip's claim for the send: the new
   * claim's token, or null when the claim is no longer this trip's (it ran
   * out and another trip holds the refund, or it was decided): then nothing
   * is sent.
   */
  @Transactional()
  private async markSent(id: number, token: number): Promise<number | null> {
    const refund = (await this.refunds.lockById(id))!;
    if (refund.status !== 'PENDING' || !this.holds(refund, token)) return null;
    const now = this.clock.nowMs();
    refund.submittedAt = new Date(now);
    refund.sendAttempts += 1;
    // Strictly later than the token it replaces, so an older trip never matches it.
    refund.claimedUntil = new Date(Math.max(now + REFUND_CLAIM_MS, token + 1));
    await this.refunds.save(refund);
    return refund.claimedUntil.getTime();
  }

  /** A PENDING refund whose gateway has no refund call waits for an operator (decisions 22). */
  @Transactional()
  private async makeManual(id: number): Promise<Refund> {
    const refund = (await this.refunds.lockById(id))!;
    if (refund.status !== 'PENDING' || refund.manual) return refund;
    refund.manual = true;
    refund.claimedUntil = null;
    refund.recheckAt = null;
    return this.refunds.save(refund);
  }

  /** Whether the trip whose claim ends at `token` still holds the refund. */
  private holds(refund: Refund, token: number): boolean {
    return refund.claimedUntil?.getTime() === token;
  }

  /**
   * Ends a trip without a decision: asked again after a pause that grows
   * with the refund's age. A trip that no longer holds the refund leaves it
   * as the trip holding it has it.
   */
  @Transactional()
  private async release(id: number, token: number): Promise<Refund> {
    const refund = (await this.refunds.lockById(id))!;
    if (refund.status !== 'PENDING' || !this.holds(refund, token)) return refund;
    refund.claimedUntil = null;
    refund.recheckAt = new Date(this.clock.nowMs() + this.recheckPause(refund));
    return this.refunds.save(refund);
  }

  /** A minute at first, then a tenth of the time since the last send, at most an hour. */
  private recheckPause(refund: Refund): number {
    const age = refund.submittedAt ? this.clock.nowMs() - refund.submittedAt.getTime() : 0;
    return Math.min(Math.max(REFUND_RECHECK_MS, age / 10), 3_600_000);
  }

  /**
   * Applies the gateway's answer. A decision (succeeded, failed) is final
   * whoever brings it; "pending" from a trip that no longer holds the
   * refund does not end the claim of the trip that does.
   */
  @Transactional()
  private async applyAnswer(
    id: number,
    answer: GatewayRefund,
    failure: string,
    token?: number,
  ): Promise<Refund> {
    const refund = (await this.refunds.lockById(id))!;
    if (refund.status !== 'PENDING') return refund;
    if (answer.status === 'pending' && token !== undefined && !this.holds(refund, token)) {
      refund.gatewayRefundId = answer.refundId || refund.gatewayRefundId;
      return this.refunds.save(refund);
    }
    refund.claimedUntil = null;
    if (answer.status === 'pending') {
      refund.gatewayRefundId = answer.refundId || refund.gatewayRefundId;
      refund.recheckAt = new Date(this.clock.nowMs() + this.recheckPause(refund));
      return this.refunds.save(refund);
    }
    return this.finish(
      refund,
      answer,
      answer.failureReason ? `${failure}: ${answer.failureReason}` : failure,
    );
  }

  /** SUCCEEDED (the payment's refunded total grows) or FAILED, with its event. */
  private async finish(refund: Refund, answer: GatewayRefund, failure: string): Promise<Refund> {
    const previous = refund.status;
    refund.gatewayRefundId = answer.refundId || refund.gatewayRefundId;
    const scope = { appId: refund.appId, mode: refund.mode };
    const reference = await this.referenceOf(refund);
    if (answer.status === 'succeeded') {
      refund.status = 'SUCCEEDED';
      const saved = await this.refunds.save(refund);
      await this.payments.recordRefunded(refund.paymentId, refund.amountMinor);
      await this.publish(new RefundSucceeded(scope, saved, previous, reference));
      return saved;
    }
    refund.status = 'FAILED';
    refund.failureReason = failure;
    const saved = await this.refunds.save(refund);
    await this.publish(new RefundFailed(scope, saved, previous, reference));
    return saved;
  }

  private async lockAwaitingApproval(id: number): Promise<Refund> {
    const refund = await this.refunds.lockById(id);
    if (!refund) throw AppError.notFound('Refund');
    if (refund.status !== 'PENDING' || !refund.approvalRequired || refund.approvedAt) {
      throw AppError.invalidState(
        refund.approvedAt
          ? 'This refund was already approved'
          : `A ${refund.status.toLowerCase()} refund is not awaiting approval`,
      );
    }
    return refund;
  }

  private publish(fact: RefundPending | RefundSucceeded | RefundFailed): Promise<void> {
    return this.bus.publish(fact);
  }

  private async referenceOf(refund: Refund): Promise<string> {
    return (await this.customers.get(refund, refund.customerId)).externalId;
  }
}

/** 409 for a gateway call about a manual refund: there is none to make. */
function manualRefund(refund: Refund): AppError {
  return AppError.invalidState(
    `This refund is manual: the ${refund.gateway} gateway has no refund call, so Joma never sends or asks about it; pay the customer back outside Joma, then complete it with POST /api/v1/admin/refunds/${refund.id}/complete`,
  );
}
