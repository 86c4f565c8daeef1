import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import type { TenantScope } from '../database/tenant';
import { GatewaysService } from '../gateways/gateways.service';
import type { SandboxChoice } from '../gateways/payment-gateway.types';
import { Payment, PaymentsService, SettleOutcome } from '../payments/payments.service';

const CHOICE: Record<SettleOutcome, SandboxChoice> = {
  succeeded: 'pay',
  failed: 'fail',
  cancelled: 'cancel',
};
const SANDBOX = 'sandbox';

/** Drives the sandbox gateway as a customer would, for TEST-mode integrations. */
@Injectable()
export class TestHelpersService {
  constructor(
    private readonly payments: PaymentsService,
    private readonly gateways: GatewaysService,
  ) {}

  async settlePayment(scope: TenantScope, id: number, outcome: SettleOutcome): Promise<Payment> {
    // Refuse before touching the gateway: e.g. settling a cancelled payment changes nothing and emits nothing.
    const payment = await this.payments.assertCanSettle(scope, id, outcome);
    if (payment.gateway !== SANDBOX || !payment.gatewaySessionId) {
      throw AppError.invalidState('Only sandbox payments can be settled by a test helper');
    }
    const done = await this.gateways.completeSandboxCheckout(
      payment.gatewaySessionId,
      CHOICE[outcome],
    );
    if (done === 'missing') throw AppError.notFound('Payment');
    // The checkout was closed by a cancel or void, or the customer already chose otherwise.
    if (done === 'refused') {
      throw AppError.invalidState(
        `The checkout of this ${payment.status.toLowerCase()} payment no longer takes "${outcome}"`,
      );
    }
    // The same confirmation path a gateway's return or IPN takes.
    await this.payments.confirmFromGateway(SANDBOX, { session_id: payment.gatewaySessionId });
    return this.payments.get(scope, id);
  }

  expirePayment(scope: TenantScope, id: number): Promise<Payment> {
    return this.payments.expireNow(scope, id);
  }
}
