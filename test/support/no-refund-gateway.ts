import { type INestApplicationContext, Injectable, Module } from '@nestjs/common';
import type { Pool } from 'pg';

import {
  type CallbackSubject,
  type CheckoutCapability,
  type CheckoutRef,
  type CheckoutRequest,
  type CheckoutSession,
  GatewayAdapter,
  type PaymentGateway,
  SandboxGateway,
  SandboxGatewayModule,
  type StatusQueryCapability,
  type VerifiedStatus,
} from '../../src/gateways';
import { PaymentConfirmationsService } from '../../src/payments';

/** The test gateway's name: what payments name as `gateway` to go through it. */
export const NO_REFUND = 'norefund';

/**
 * A gateway that publishes no refund call, as Nagad does (decisions
 * section 22), for tests only: its adapter has no `refunds` capability, so
 * every refund of its payments is manual. Checkouts behave like the
 * sandbox's (the sandbox's own sessions and hosted page serve them); only
 * the name, and the missing refund call, differ.
 *
 * It serves both modes so that it is never the TEST default (the registry
 * prefers a gateway made for one mode alone: the sandbox), and needs no
 * credentials; tests name it explicitly (`gateway: 'norefund'`).
 */
@Injectable()
@GatewayAdapter()
export class NoRefundGateway implements PaymentGateway, CheckoutCapability, StatusQueryCapability {
  readonly name = NO_REFUND;
  readonly modes = ['TEST', 'LIVE'] as const;
  readonly credentialFields = [] as const;
  readonly checkout = this;
  readonly statusQuery = this;

  constructor(private readonly sandbox: SandboxGateway) {}

  createCheckout(req: CheckoutRequest): Promise<CheckoutSession> {
    return this.sandbox.createCheckout(req);
  }

  subjectOf(payload: Record<string, unknown>): CallbackSubject | null {
    return this.sandbox.subjectOf(payload);
  }

  verifyConfirmation(payload: Record<string, unknown>): Promise<VerifiedStatus | null> {
    return this.sandbox.verifyConfirmation(payload);
  }

  closeCheckout(sessionId: string): Promise<boolean> {
    return this.sandbox.closeCheckout(sessionId);
  }

  queryStatus(checkout: CheckoutRef): Promise<VerifiedStatus | null> {
    return this.sandbox.queryStatus(checkout);
  }
}

/** Mounted beside the real app (createTestApp's or createTestContext's `imports`). */
@Module({
  imports: [SandboxGatewayModule],
  providers: [NoRefundGateway],
})
export class NoRefundGatewayModule {}

/**
 * Captures a `norefund` payment as a payer would: pays its (sandbox)
 * checkout, then Joma hears of it through the same confirmation path a
 * gateway's return or IPN takes. Throws unless the payment is then SUCCEEDED.
 */
export async function captureNoRefund(
  app: INestApplicationContext,
  db: Pool,
  paymentId: number,
): Promise<void> {
  const status = async () =>
    (
      await db.query(`SELECT gateway, gateway_session_id, status FROM payments WHERE id = $1`, [
        paymentId,
      ])
    ).rows[0] as { gateway: string; gateway_session_id: string; status: string } | undefined;
  const row = await status();
  if (!row || row.gateway !== NO_REFUND)
    throw new Error(`payment ${paymentId} is not a ${NO_REFUND} one`);
  const done = await app.get(SandboxGateway).complete(row.gateway_session_id, 'pay');
  if (!done || done.refused) throw new Error(`payment ${paymentId}: its checkout took no payment`);
  await app.get(PaymentConfirmationsService).confirmFromGateway(NO_REFUND, {
    session_id: row.gateway_session_id,
  });
  const after = (await status())!;
  if (after.status !== 'SUCCEEDED')
    throw new Error(`payment ${paymentId} is ${after.status}, not SUCCEEDED`);
}
