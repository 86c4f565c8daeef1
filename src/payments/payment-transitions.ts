import { Injectable, Logger } from '@nestjs/common';

import { Clock } from '../common/clock/clock';
import { DomainEventBus, OnDomainEvent } from '../common/domain-events';
import { CustomersService } from '../customers';
import type { GatewayOutcome, VerifiedStatus } from '../gateways';
import { maskAccount, maskIn } from './mask-account';
import { Payment } from './payment.entity';
import { CaptureSettled, paymentFact } from './payment-events';
import { PaymentTrigger, transition } from './payment-state';
import { PaymentsRepository } from './payments.repository';

/** How long a cancelled payment's checkout is asked about when the gateway did not confirm it closed. */
export const CANCELLED_CHECKOUT_WATCH_MS = 72 * 3_600_000;

export type ApplyResult = { payment: Payment; changed: boolean; invalid?: string };

const TRIGGER_OF: Record<Exclude<GatewayOutcome, 'open'>, PaymentTrigger> = {
  captured: 'capture',
  failed: 'fail',
  cancelled: 'cancel',
};

/**
 * The one place a payment changes status: the pure transition table
 * decides, the row is saved and the fact published on the domain-event bus,
 * all in the caller's transaction (with the payment locked FOR UPDATE).
 * Subscribers (the invoice counting a capture, the outbox) run in it too,
 * and so does the recording of a capture's excess, once it is settled.
 */
@Injectable()
export class PaymentTransitions {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly payments: PaymentsRepository,
    private readonly customers: CustomersService,
    private readonly bus: DomainEventBus,
    private readonly clock: Clock,
  ) {}

  /**
   * A gateway's verified answer about a locked payment. A capture the
   * gateway reports for this payment's checkout is the truth about money
   * (decisions sections 13 and 19): it always ends SUCCEEDED, and when its
   * reference, amount or currency differs from the payment's, it is counted
   * on no invoice and refunded whole (`amount_mismatch`). A field the
   * answer leaves out is no difference. Any other outcome that does not
   * match the payment is logged and changes nothing.
   */
  async applyVerified(payment: Payment, verified: VerifiedStatus): Promise<ApplyResult> {
    if (verified.outcome === 'open') return { payment, changed: false };
    const differences = differencesOf(payment, verified);
    if (verified.outcome === 'captured')
      return this.apply(payment, 'capture', verified, differences);
    if (differences.length > 0) {
      this.logger.error(
        `Gateway answer (${verified.outcome}) for payment ${payment.id} differs in ${differences.join(', ')}; ignored`,
      );
      return {
        payment,
        changed: false,
        invalid: 'Gateway confirmation does not match the payment',
      };
    }
    if (
      verified.outcome === 'failed' &&
      verified.attemptOnly &&
      payment.status === 'PENDING' &&
      this.clock.nowMs() < payment.expiresAt.getTime()
    )
      return this.noteFailedAttempt(payment, verified);
    return this.apply(payment, TRIGGER_OF[verified.outcome], verified);
  }

  /**
   * One declined attempt on a checkout the payer may still pay: the payment
   * stays PENDING (no event), carrying the gateway's words so the payer's
   * page can say the attempt failed and offer another; at its deadline the
   * sweep ends it FAILED if nothing was captured.
   */
  private async noteFailedAttempt(
    payment: Payment,
    verified: VerifiedStatus,
  ): Promise<ApplyResult> {
    const reason = verified.failureReason ?? 'The attempt failed at the gateway';
    if (payment.failureReason === reason) return { payment, changed: false };
    payment.failureReason = reason;
    payment.updatedAt = this.clock.now();
    return { payment: await this.payments.save(payment), changed: false };
  }

  /** Applies a trigger to a payment already locked FOR UPDATE in this transaction. */
  async apply(
    payment: Payment,
    trigger: PaymentTrigger,
    verified?: VerifiedStatus,
    differences: readonly string[] = [],
  ): Promise<ApplyResult> {
    const t = transition(payment.status, trigger);
    if (t.kind === 'noop') return { payment, changed: false };
    if (t.kind === 'invalid') return { payment, changed: false, invalid: t.reason };
    const previous = payment.status;
    const now = this.clock.now();
    const requestedMinor = payment.amountMinor;
    payment.status = t.to;
    payment.updatedAt = now;
    if (t.to === 'SUCCEEDED') {
      payment.succeededAt = now;
      // A declined attempt before this capture is history, not why the payment ended.
      payment.failureReason = null;
      payment.gatewayTxnId = verified?.txnId ?? payment.gatewayTxnId;
      payment.paymentMethod = verified?.method?.type ?? null;
      payment.paymentMethodLabel = verified?.method?.label ?? null;
      payment.paymentMethodBrand = verified?.method?.brand ?? null;
      payment.paymentMethodIssuer = verified?.method?.issuer ?? null;
      payment.paymentMethodAccount = maskAccount(verified?.method?.account ?? null);
      payment.paymentMethodLabel = maskIn(payment.paymentMethodLabel, verified?.method?.account);
      payment.riskLevel = verified?.riskLevel ?? 'NORMAL';
      if (
        verified?.amountMinor &&
        verified.amountMinor > 0 &&
        verified.amountMinor !== requestedMinor
      )
        // What the gateway captured is what moved (ledger, refund); the request is in the log.
        payment.amountMinor = verified.amountMinor;
      if (differences.length > 0)
        this.logger.error(
          `Payment ${payment.id}: ${payment.gateway} captured ${payment.amountMinor} ${verified?.currency || payment.currency} (reference ${verified?.reference || 'not stated'}) where ${requestedMinor} ${payment.currency} (${payment.reference}) was asked: it differs in ${differences.join(', ')}; refunded in full (amount_mismatch)`,
        );
    }
    // A cancelled checkout may still be paid at the gateway until it confirms
    // it closed: asked about for 72 hours (decisions section 13); a capture ends that.
    if (t.to === 'CANCELLED' && payment.gatewaySessionId)
      payment.checkoutOpenUntil = new Date(now.getTime() + CANCELLED_CHECKOUT_WATCH_MS);
    if (t.to === 'SUCCEEDED') payment.checkoutOpenUntil = null;
    if (t.to === 'FAILED' && verified?.failureReason)
      payment.failureReason = verified.failureReason;
    const saved = await this.payments.save(payment);
    const scope = { appId: saved.appId, mode: saved.mode };
    const customer = await this.customers.get(scope, saved.customerId);
    const fact = paymentFact(
      t.event,
      scope,
      saved,
      previous,
      customer.externalId,
      differences.length > 0,
    );
    // A capture's subscribers, then its CaptureSettled's (which records the excess below), run in here.
    await this.bus.publish(fact);
    return { payment: saved, changed: true };
  }

  /**
   * What a settled capture did not count (an invoice already paid, or
   * needing less, or a capture of another amount) is the payment's excess,
   * to be refunded. The payment the fact carries is the one this
   * transaction locked and saved (and `apply` returns): it is brought up to
   * date with its row.
   */
  @OnDomainEvent(CaptureSettled)
  async recordExcess(settled: CaptureSettled): Promise<void> {
    if (settled.excessMinor === 0) return;
    const payment = await this.payments.recordExcess(settled.payment, settled.excessMinor);
    if (!settled.mismatch)
      this.logger.warn(
        `Payment ${payment.id} captured ${payment.excessMinor} beyond what invoice ${payment.invoiceId} needed (excess, to be refunded)`,
      );
  }
}

/**
 * Where a gateway's answer differs from the payment: the reference, amount
 * and currency it states (one it leaves out is no difference: decisions
 * section 19).
 */
export function differencesOf(payment: Payment, verified: VerifiedStatus): string[] {
  const differs: string[] = [];
  if (verified.reference && verified.reference !== payment.reference) differs.push('reference');
  if (verified.amountMinor != null && verified.amountMinor !== payment.amountMinor)
    differs.push('amount');
  if (verified.currency && verified.currency !== payment.currency) differs.push('currency');
  return differs;
}
