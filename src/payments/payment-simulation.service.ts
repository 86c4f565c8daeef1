import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import type { TenantScope } from '../database/tenant';
import { Payment } from './payment.entity';
import { PaymentConfirmationsService } from './payment-confirmations.service';
import { PaymentTrigger, transition } from './payment-state';
import { PaymentsRepository } from './payments.repository';

/** How a (simulated) customer finishes a checkout. */
export type SettleOutcome = 'succeeded' | 'failed' | 'cancelled';
const SETTLE_TRIGGER: Record<SettleOutcome, PaymentTrigger> = {
  succeeded: 'capture',
  failed: 'fail',
  cancelled: 'cancel',
};

/** What the TEST-mode helpers do to payments (the guard that keeps them to TEST mode is theirs). */
@Injectable()
export class PaymentSimulationService {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly confirmations: PaymentConfirmationsService,
    private readonly clock: Clock,
  ) {}

  /** Refuses (409) an outcome this payment can no longer take, before anything touches the gateway. */
  async assertCanSettle(scope: TenantScope, id: number, outcome: SettleOutcome): Promise<Payment> {
    const payment = await this.payments.get(scope, id);
    const t = transition(payment.status, SETTLE_TRIGGER[outcome]);
    if (t.kind === 'invalid') throw AppError.invalidState(t.reason);
    return payment;
  }

  /** The deadline passes now: the payment expires (or settles, when its gateway says it was paid). */
  async expireNow(scope: TenantScope, id: number): Promise<Payment> {
    const payment = await this.payments.get(scope, id);
    if (payment.status === 'PENDING') {
      const result = await this.confirmations.expire(payment, this.clock.now());
      return result?.payment ?? payment;
    }
    const t = transition(payment.status, 'expire');
    if (t.kind === 'invalid') throw AppError.invalidState(t.reason);
    return payment;
  }
}
