import { Injectable } from '@nestjs/common';

import { Clock } from '../../common/clock/clock';
import { randomToken } from '../../common/crypto/crypto';
import { AppConfig } from '../../config/app-config';
import { GatewayAdapter } from '../gateway-adapter.decorator';
import type {
  CallbackSubject,
  CheckoutCapability,
  CheckoutRef,
  CheckoutRequest,
  CheckoutSession,
  GatewayOutcome,
  GatewayRefund,
  PaymentGateway,
  RefundCapability,
  RefundQuery,
  SettlementCapability,
  SettlementLine,
  StatusQueryCapability,
  VerifiedStatus,
} from '../payment-gateway.types';
import { SandboxSession, SandboxStatus } from './sandbox-session.entity';
import { SandboxSessionsRepository } from './sandbox-sessions.repository';

/** What a customer chooses on the sandbox checkout. */
export type SandboxChoice = 'pay' | 'fail' | 'cancel';

const OUTCOME: Record<SandboxStatus, GatewayOutcome> = {
  OPEN: 'open',
  CAPTURED: 'captured',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  CLOSED: 'cancelled',
};

/** What each customer choice turns an open session into. */
const CHOSEN: Record<SandboxChoice, SandboxStatus> = {
  pay: 'CAPTURED',
  fail: 'FAILED',
  cancel: 'CANCELLED',
};

/**
 * The built-in sandbox gateway. It keeps its own sessions (as a real gateway
 * would on its side), serves a hosted checkout page, and sends the customer
 * back to Joma's return URL, where Joma verifies the outcome by asking this
 * adapter, exactly as it asks SSLCommerz's validation API.
 * Like a real gateway session, a sandbox checkout outlives Joma's deadline
 * (it can still be paid after expiry: late settlement); an explicit cancel
 * or void closes it (closeCheckout), after which it takes no payment.
 */
@Injectable()
@GatewayAdapter()
export class SandboxGateway
  implements
    PaymentGateway,
    CheckoutCapability,
    StatusQueryCapability,
    RefundCapability,
    SettlementCapability
{
  readonly name = 'sandbox';
  /** It moves no money: TEST mode only. */
  readonly modes = ['TEST'] as const;
  readonly credentialFields = [] as const;
  readonly checkout = this;
  readonly statusQuery = this;
  readonly refunds = this;
  readonly settlements = this;
  private latency: Promise<void> | null = null;
  private waiting = 0;
  private refundsHeld = false;
  private readonly heldRefunds = new Map<string, { sessionId: string; amountMinor: number }>();

  constructor(
    private readonly sessions: SandboxSessionsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * The delay switch: until `until` settles, every call a real gateway would
   * answer over the network (checkout, verification, status query, refund)
   * waits, as a slow SSLCommerz or bKash would. Tests use it to prove that
   * no transaction or row lock is held during a gateway call. `null` ends it.
   */
  slowDown(until: Promise<void> | null): void {
    this.latency = until;
  }

  /** How many calls are waiting on the delay switch right now. */
  get callsWaiting(): number {
    return this.waiting;
  }

  private async roundTrip(): Promise<void> {
    const latency = this.latency;
    if (!latency) return;
    this.waiting++;
    try {
      await latency;
    } finally {
      this.waiting--;
    }
  }

  async createCheckout(req: CheckoutRequest): Promise<CheckoutSession> {
    await this.roundTrip();
    const sessionId = `sbx_${randomToken(24)}`;
    await this.sessions.insert({
      sessionId,
      paymentReference: req.reference,
      merchantName: req.merchantName,
      amountMinor: req.amountMinor,
      currency: req.currency,
      description: req.description ?? null,
      returnUrl: req.returnUrl,
      status: 'OPEN',
      txnId: null,
      refundedMinor: 0,
      completedAt: null,
    });
    return { sessionId, checkoutUrl: `${this.config.publicBaseUrl}/sandbox/checkout/${sessionId}` };
  }

  findSession(sessionId: string): Promise<SandboxSession | null> {
    if (!/^sbx_[A-Za-z0-9_-]{10,64}$/.test(sessionId)) return Promise.resolve(null);
    return this.sessions.find(sessionId);
  }

  /**
   * The customer's choice on the checkout page. Only an open session
   * changes; a second completion leaves the first outcome in place.
   * Returns where to send the customer's browser.
   */
  async complete(
    sessionId: string,
    choice: SandboxChoice,
  ): Promise<{ session: SandboxSession; returnUrl: string; refused: boolean } | null> {
    const status = CHOSEN[choice];
    const txnId = choice === 'pay' ? `SBXTXN${randomToken(9).toUpperCase()}` : null;
    await this.sessions.completeOpen(sessionId, status, txnId, this.clock.now());
    const session = await this.findSession(sessionId);
    if (!session) return null;
    const sep = session.returnUrl.includes('?') ? '&' : '?';
    return {
      session,
      returnUrl: `${session.returnUrl}${sep}session_id=${encodeURIComponent(sessionId)}`,
      // Closed by the merchant, or already completed with another outcome.
      refused: session.status !== status,
    };
  }

  /** True when it closed an open session; a session already paid (or ended) is not closed. */
  async closeCheckout(sessionId: string): Promise<boolean> {
    await this.roundTrip();
    return this.sessions.completeOpen(sessionId, 'CLOSED', null, this.clock.now());
  }

  subjectOf(payload: Record<string, unknown>): CallbackSubject | null {
    return typeof payload.session_id === 'string' ? { sessionId: payload.session_id } : null;
  }

  async verifyConfirmation(payload: Record<string, unknown>): Promise<VerifiedStatus | null> {
    await this.roundTrip();
    const sessionId = payload.session_id;
    return typeof sessionId === 'string' ? this.statusOf(sessionId) : null;
  }

  async queryStatus(checkout: CheckoutRef): Promise<VerifiedStatus | null> {
    await this.roundTrip();
    return this.statusOf(checkout.sessionId);
  }

  private async statusOf(sessionId: string): Promise<VerifiedStatus | null> {
    const s = await this.findSession(sessionId);
    if (!s) return null;
    return {
      sessionId: s.sessionId,
      reference: s.paymentReference,
      outcome: OUTCOME[s.status],
      amountMinor: s.amountMinor,
      currency: s.currency,
      txnId: s.txnId,
      method:
        s.status === 'CAPTURED'
          ? {
              type: 'sandbox',
              label: 'Sandbox card •••• 4242',
              brand: 'SANDBOX',
              issuer: 'Joma Sandbox Bank',
              account: '•••• 4242',
            }
          : undefined,
    };
  }

  /**
   * Tests: while held, refunds answer "pending" (a gateway still processing
   * them) and status queries keep saying so; released, the next query
   * completes them.
   */
  holdRefunds(on: boolean): void {
    this.refundsHeld = on;
  }

  async refund(req: {
    sessionId: string;
    amountMinor: number;
    reference: string;
  }): Promise<GatewayRefund> {
    const { sessionId, amountMinor, reference } = req;
    await this.roundTrip();
    const refundId = `sbxr_${reference}`;
    if (this.refundsHeld) {
      this.heldRefunds.set(reference, { sessionId, amountMinor });
      return { refundId, status: 'pending' };
    }
    const refunded = await this.sessions.addRefund(sessionId, amountMinor, reference);
    return refunded
      ? { refundId, status: 'succeeded' }
      : { refundId, status: 'failed', failureReason: 'more than the capture has left' };
  }

  /** By Joma's reference: held (pending), applied (succeeded), or none (null: never received). */
  async queryRefund(req: RefundQuery): Promise<GatewayRefund | null> {
    await this.roundTrip();
    const refundId = `sbxr_${req.reference}`;
    const held = this.heldRefunds.get(req.reference);
    if (held && this.refundsHeld) return { refundId, status: 'pending' };
    if (held) {
      this.heldRefunds.delete(req.reference);
      const refunded = await this.sessions.addRefund(
        held.sessionId,
        held.amountMinor,
        req.reference,
      );
      return { refundId, status: refunded ? 'succeeded' : 'failed' };
    }
    return (await this.sessions.hasRefund(req.sessionId, req.reference))
      ? { refundId, status: 'succeeded' }
      : null;
  }

  async settlementLines(day: string): Promise<SettlementLine[]> {
    const rows = await this.sessions.capturedOn(day);
    return rows.map((s) => ({
      reference: s.paymentReference,
      txnId: s.txnId ?? '',
      amountMinor: s.amountMinor,
      settledAt: s.completedAt!,
    }));
  }
}
