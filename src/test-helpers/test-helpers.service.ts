import { Injectable } from '@nestjs/common';

import { AppError } from '../common/errors/app-error';
import type { TenantScope } from '../database/tenant';
import { SandboxChoice, SandboxGateway } from '../gateways';
import {
  type Payment,
  PaymentConfirmationsService,
  PaymentSimulationService,
  PaymentsService,
  type SettleOutcome,
} from '../payments';

const CHOICE: Record<SettleOutcome, SandboxChoice> = {
  succeeded: 'pay',
  failed: 'fail',
  cancelled: 'cancel',
};

/** Drives the sandbox gateway as a customer would, for TEST-mode integrations. */
@Injectable()
export class TestHelpersService {
  constructor(
    private readonly payments: PaymentsService,
    private readonly simulation: PaymentSimulationService,
    private readonly confirmations: PaymentConfirmationsService,
    private readonly sandbox: SandboxGateway,
  ) {}

  async settlePayment(scope: TenantScope, id: number, outcome: SettleOutcome): Promise<Payment> {
    // Refuse before touching the gateway: e.g. settling a cancelled payment changes nothing and emits nothing.
    const payment = await this.simulation.assertCanSettle(scope, id, outcome);
    if (payment.gateway !== this.sandbox.name || !payment.gatewaySessionId) {
      throw AppError.invalidState('Only sandbox payments can be settled by a test helper');
    }
    const done = await this.sandbox.complete(payment.gatewaySessionId, CHOICE[outcome]);
    if (!done) throw AppError.notFound('Payment');
    // The checkout was closed by a cancel or void, or the customer already chose otherwise.
    if (done.refused) {
      throw AppError.invalidState(
        `The checkout of this ${payment.status.toLowerCase()} payment no longer takes "${outcome}"`,
      );
    }
    // The same confirmation path a gateway's return or IPN takes.
    await this.confirmations.confirmFromGateway(this.sandbox.name, {
      session_id: payment.gatewaySessionId,
    });
    return this.payments.get(scope, id);
  }

  expirePayment(scope: TenantScope, id: number): Promise<Payment> {
    return this.simulation.expireNow(scope, id);
  }
}
