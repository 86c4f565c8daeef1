import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import type { TenantScope } from '../database/tenant';
import { SandboxChoice, SandboxGateway } from '../gateways/sandbox/sandbox.gateway';
import type { Payment } from '../payments/payment.entity';
import type { PaymentTrigger } from '../payments/payment-state';
import { PaymentsService } from '../payments/payments.service';

const CHOICE: Record<'succeeded' | 'failed' | 'cancelled', { choice: SandboxChoice; trigger: PaymentTrigger }> = {
  succeeded: { choice: 'pay', trigger: 'capture' },
  failed: { choice: 'fail', trigger: 'fail' },
  cancelled: { choice: 'cancel', trigger: 'cancel' },
};

/** Drives the sandbox gateway as a customer would, for TEST-mode integrations. */
@Injectable()
export class TestHelpersService {
  constructor(
    private readonly payments: PaymentsService,
    private readonly sandbox: SandboxGateway,
  ) {}

  async settlePayment(scope: TenantScope, id: number, outcome: keyof typeof CHOICE): Promise<Payment> {
    const { choice, trigger } = CHOICE[outcome];
    // Refuse before touching the gateway: e.g. settling a cancelled payment changes nothing and emits nothing.
    const payment = await this.payments.assertCanApply(scope, id, trigger);
    if (payment.gateway !== this.sandbox.name || !payment.gatewaySessionId) {
      throw AppError.invalidState('Only sandbox payments can be settled by a test helper');
    }
    const done = await this.sandbox.complete(payment.gatewaySessionId, choice);
    if (!done) throw AppError.notFound('Payment');
    await this.payments.confirmFromGateway(this.sandbox.name, { session_id: payment.gatewaySessionId });
    return this.payments.get(scope, id);
  }

  expirePayment(scope: TenantScope, id: number): Promise<Payment> {
    return this.payments.expireNow(scope, id);
  }
}
