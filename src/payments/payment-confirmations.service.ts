import { Injectable, Logger } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import { isDatabaseError } from '../database/database-errors';
import type { TenantScope } from '../database/tenant';
import { retryOnConflict } from '../database/transaction';
import type { VerifiedStatus } from '../gateways';
import { gatewayErrorText, GatewayRegistry } from '../gateways';
import { Payment } from './payment.entity';
import { ApplyResult, PaymentTransitions } from './payment-transitions';
import { PaymentsRepository } from './payments.repository';

/** How long one sweep owns the due payments it claimed (it asks their gateways meanwhile). */
export const SWEEP_LEASE_MS = 5 * 60_000;
/**
 * How long past its deadline a payment whose gateway could not answer stays
 * PENDING, asked again after every lease (decisions 13 and 19: a capture the
 * gateway made is never ended EXPIRED because its answer was lost). Beyond
 * it the payment expires (logged as an error), and a capture found later
 * still revives it.
 */
export const UNANSWERED_EXPIRY_GRACE_MS = 72 * 3_600_000;
const UNANSWERED = Symbol('the gateway did not answer');

/**
 * At most one gateway question per PENDING payment and replica this often,
 * for customers waiting on its status page (which reloads itself as often).
 */
export const WAITING_ASK_EVERY_MS = 10_000;
/** The pay button asks the gateway about each earlier checkout of an invoice at most this often (decisions 14). */
export const CHECKOUT_ASK_EVERY_MS = 30_000;

/**
 * What gateways say about payments, applied. Every gateway call runs with no
 * transaction open; each answer is then applied in a short transaction of
 * its own that locks only the payment (and what its subscribers lock).
 */
@Injectable()
export class PaymentConfirmationsService {
  private readonly logger = new Logger('Payments');
  /** When each payment's gateway was last asked for a waiting customer (this replica). */
  private readonly askedForWaiting = new Map<number, number>();

  constructor(
    private readonly payments: PaymentsRepository,
    private readonly transitions: PaymentTransitions,
    private readonly gateways: GatewayRegistry,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /**
   * The one confirmation path: whatever reached Joma from a gateway (browser
   * return, IPN, a test helper) is verified with the gateway, then applied.
   * Repeats and races change nothing and emit nothing. Throws when the
   * gateway cannot be asked (a notifying gateway retries).
   */
  async confirmFromGateway(
    gatewayName: string,
    payload: Record<string, unknown>,
  ): Promise<ApplyResult | null> {
    const claimed = await this.claimedBy(gatewayName, payload);
    if (!claimed) return null;
    let verified: VerifiedStatus | null;
    try {
      verified = await this.verify(gatewayName, claimed, payload);
    } catch (err) {
      // The gateway could not be asked: nothing is believed, and it is told to notify again.
      this.logger.warn(
        `Notification for payment ${claimed.id} not confirmed, ${gatewayName} did not answer (${(err as Error).message})`,
      );
      throw new AppError(
        ErrorCode.SERVICE_UNAVAILABLE,
        `The ${gatewayName} gateway could not be asked about this notification; send it again later`,
        undefined,
        { 'Retry-After': '60' },
      );
    }
    return verified ? this.applyStatus(claimed.id, verified) : null;
  }

  /**
   * The customer's browser back from the gateway: confirmed as above, but a
   * gateway that cannot be asked right now (down, slow, answering garbage)
   * leaves the payment as it is and gives it back, so the customer is shown
   * where it stands (PENDING: "still being confirmed") instead of an error;
   * the status page, the gateway's own notification or the expiry sweep
   * settles it later. A return the gateway does not vouch for asks the
   * gateway's status instead (decisions section 11: returns are hints).
   * Null when no payment is claimed.
   */
  async confirmReturn(
    gatewayName: string,
    payload: Record<string, unknown>,
  ): Promise<Payment | null> {
    const claimed = await this.claimedBy(gatewayName, payload);
    if (!claimed) return null;
    let verified: VerifiedStatus | null;
    try {
      verified = await this.verify(gatewayName, claimed, payload);
    } catch (err) {
      this.logger.warn(
        `Return of payment ${claimed.id} not confirmed, ${gatewayName} did not answer (${(err as Error).name}): it stays ${claimed.status} until the gateway answers (its notification, the status page or the expiry sweep)`,
      );
      return claimed;
    }
    // A return the gateway does not vouch for (an unsigned SSLCommerz fail or
    // cancel post, say) is a hint: the gateway is asked, and only its answer counts.
    verified ??= await this.askGateway(claimed);
    if (!verified || verified.outcome === 'open') return claimed;
    return (await this.applyStatus(claimed.id, verified))?.payment ?? claimed;
  }

  /** Which payment a gateway's message claims to be about (not believed yet): to know whose credentials verify it. */
  private async claimedBy(
    gatewayName: string,
    payload: Record<string, unknown>,
  ): Promise<Payment | null> {
    if (!this.gateways.has(gatewayName)) return null;
    const subject = this.gateways.get(gatewayName).checkout.subjectOf(payload);
    return subject ? this.payments.bySubject(gatewayName, subject) : null;
  }

  private async verify(
    gatewayName: string,
    claimed: Payment,
    payload: Record<string, unknown>,
  ): Promise<VerifiedStatus | null> {
    const ctx = await this.gateways.context(claimed, gatewayName);
    // A callback as a whole is bounded (decisions section 11), whatever each call's own timeout.
    const signal = AbortSignal.timeout(this.config.callbackDeadlineMs);
    return this.gateways.get(gatewayName).checkout.verifyConfirmation(payload, { ...ctx, signal });
  }

  /**
   * A customer waiting on a PENDING payment's status page (the gateway did
   * not answer when they came back): asks the gateway, at most once per
   * WAITING_ASK_EVERY_MS per payment and replica however often the page is
   * reloaded, applies a final answer, and gives the payment back as it now
   * stands. The gateway is asked with nothing locked.
   */
  async refreshForWaitingCustomer(payment: Payment): Promise<Payment> {
    if (payment.status !== 'PENDING') return payment;
    const now = this.clock.nowMs();
    if ((this.askedForWaiting.get(payment.id) ?? -Infinity) > now - WAITING_ASK_EVERY_MS)
      return payment;
    if (this.askedForWaiting.size >= 10_000)
      for (const [id, at] of this.askedForWaiting)
        if (at <= now - WAITING_ASK_EVERY_MS) this.askedForWaiting.delete(id);
    this.askedForWaiting.set(payment.id, now);
    const status = await this.askGateway(payment);
    if (!status || status.outcome === 'open') return payment;
    return (await this.applyStatus(payment.id, status))?.payment ?? payment;
  }

  /**
   * Before the pay button opens a checkout: asks the gateway about the
   * invoice's PENDING and EXPIRED checkouts not asked about in the last 30 s (the customer may have paid one
   * whose return never reached Joma, even after its deadline) and applies
   * each finished one.
   */
  async refreshCheckoutsForInvoice(scope: TenantScope, invoiceId: number): Promise<void> {
    // Each earlier checkout at most once per CHECKOUT_ASK_EVERY_MS: clicks cannot multiply gateway calls.
    const now = this.clock.nowMs();
    const due = await this.payments.claimStatusChecks(
      scope,
      invoiceId,
      new Date(now),
      new Date(now - CHECKOUT_ASK_EVERY_MS),
    );
    for (const p of due) {
      const status = await this.askGateway(p);
      if (status && status.outcome !== 'open') await this.applyStatus(p.id, status);
    }
  }

  /**
   * Before a payment is cancelled: asks its gateway (nothing locked) and
   * records a capture it reports (decisions section 13). Anything else, or
   * no answer, changes nothing here: the cancel goes on, and a checkout the
   * gateway does not confirm closed is asked about later.
   */
  async settleIfCaptured(payment: Payment): Promise<void> {
    const status = await this.askGateway(payment);
    if (status?.outcome === 'captured') await this.applyStatus(payment.id, status);
  }

  /**
   * CANCELLED payments whose checkout the gateway did not confirm closed,
   * for 72 hours after the cancel (decisions section 13): each due one is
   * claimed with a lease, its gateway asked with nothing locked, a capture
   * recorded (the payment revives: SUCCEEDED, excess on a VOID invoice),
   * and a checkout the gateway reports ended (cancelled or failed for good)
   * is asked about no more. Returns how many were claimed.
   */
  async recheckCancelled(limit = 100): Promise<number> {
    const now = this.clock.now();
    const claimed = await this.payments.claimOpenCancelled(
      now,
      new Date(now.getTime() + SWEEP_LEASE_MS),
      limit,
    );
    for (const payment of claimed) {
      try {
        const status = await this.askGateway(payment);
        if (status?.outcome === 'captured') await this.applyStatus(payment.id, status);
        else if (status && status.outcome !== 'open' && !status.attemptOnly)
          await this.payments.checkoutClosed(payment.id);
      } catch (err) {
        this.logger.error(
          `Could not recheck cancelled payment ${payment.id}: ${(err as Error).name}`,
        );
      } finally {
        await this.payments.releaseSweepClaim(payment.id);
      }
    }
    return claimed.length;
  }

  /** A verified answer applied in its own transaction (run again if it lost a deadlock). */
  private applyStatus(id: number, verified: VerifiedStatus): Promise<ApplyResult | null> {
    return retryOnConflict(() => this.applyStatusInTx(id, verified));
  }

  @Transactional()
  private async applyStatusInTx(id: number, verified: VerifiedStatus): Promise<ApplyResult | null> {
    const payment = await this.payments.lockById(id);
    return payment ? this.transitions.applyVerified(payment, verified) : null;
  }

  /**
   * Expires due PENDING payments, a batch at a time, safe with several
   * replicas: the batch is claimed with a lease (SKIP LOCKED) in one
   * statement, each gateway is asked with nothing locked, and each payment is
   * then settled (the gateway says captured) or expired in its own short
   * transaction. Returns how many were claimed.
   */
  async expireDue(limit = 100): Promise<number> {
    const now = this.clock.now();
    const claimed = await this.payments.claimDue(
      now,
      new Date(now.getTime() + SWEEP_LEASE_MS),
      limit,
    );
    for (const payment of claimed) {
      try {
        await this.expire(payment);
      } catch (err) {
        this.logger.error(`Could not expire payment ${payment.id}: ${(err as Error).name}`);
      }
    }
    return claimed.length;
  }

  /**
   * Asks the gateway (no lock held), then settles or expires the payment.
   * `deadline` moves its deadline first (the expire-now test helper).
   */
  async expire(payment: Payment, deadline?: Date): Promise<ApplyResult | null> {
    const status = await this.askGateway<typeof UNANSWERED>(payment, { unanswered: UNANSWERED });
    if (status === UNANSWERED) {
      const due = (deadline ?? payment.expiresAt).getTime();
      const now = this.clock.nowMs();
      if (now < due + UNANSWERED_EXPIRY_GRACE_MS) {
        // The payer may have paid: it stays PENDING. The next question waits
        // a lease that grows with the time past the deadline (5 to 60 min),
        // counted from now: a failing gateway is not asked in a loop.
        const wait = Math.min(Math.max((now - due) / 4, SWEEP_LEASE_MS), 60 * 60_000);
        this.logger.warn(
          `Payment ${payment.id} is past its deadline but ${payment.gateway} did not answer: it stays PENDING and is asked again in ${Math.round(wait / 60_000)} minutes`,
        );
        await this.payments.deferExpiry(payment.id, new Date(now + wait), deadline);
        return { payment, changed: false };
      }
      this.logger.error(
        `Payment ${payment.id}: ${payment.gateway} did not answer for ${UNANSWERED_EXPIRY_GRACE_MS / 3_600_000} hours past its deadline; it expires (a capture found later revives it)`,
      );
      return this.expireWith(payment.id, null, deadline);
    }
    return this.expireWith(payment.id, status, deadline);
  }

  @Transactional()
  private async expireWith(
    id: number,
    status: VerifiedStatus | null,
    deadline?: Date,
  ): Promise<ApplyResult | null> {
    const payment = await this.payments.lockById(id);
    if (!payment) return null;
    // Settled meanwhile (a confirmation won the race): nothing to expire.
    if (payment.status !== 'PENDING') return { payment, changed: false };
    if (deadline) payment.expiresAt = deadline;
    if (status && status.outcome !== 'open') {
      const settled = await this.transitions.applyVerified(payment, status);
      // An answer that does not match the payment (logged) settles nothing:
      // the deadline still passes, or the payment would stay PENDING and be
      // claimed again by every sweep.
      if (!settled.invalid) return settled;
    }
    return this.transitions.apply(payment, 'expire');
  }

  /** The gateway's answer, or null when it cannot answer (it must not stall a sweep). */
  private async askGateway(payment: Payment): Promise<VerifiedStatus | null>;
  /** The same, telling a gateway that could not answer (`unanswered`) from one that said nothing is there. */
  private async askGateway<U>(
    payment: Payment,
    options: { unanswered: U },
  ): Promise<VerifiedStatus | null | U>;
  private async askGateway<U>(
    payment: Payment,
    options?: { unanswered: U },
  ): Promise<VerifiedStatus | null | U> {
    if (!payment.gatewaySessionId) return null;
    try {
      const ctx = await this.gateways.context(payment, payment.gateway);
      const status = await this.gateways
        .get(payment.gateway)
        .statusQuery.queryStatus(
          { sessionId: payment.gatewaySessionId, reference: payment.reference },
          ctx,
        );
      await this.gateways.noteSuccess(payment, payment.gateway);
      return status;
    } catch (err) {
      const reason = gatewayErrorText(err);
      this.logger.warn(`Gateway status query failed for payment ${payment.id}: ${reason}`);
      // Joma's own database failing (the sandbox's sessions, the credentials) is not the gateway's.
      if (!isDatabaseError(err)) await this.gateways.noteError(payment, payment.gateway, reason);
      return options ? options.unanswered : null;
    }
  }
}
