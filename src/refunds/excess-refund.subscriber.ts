import { Injectable } from '@nestjs/common';

import { HandlerOrder, OnDomainEvent } from '../common/domain-events';
import { PaymentSucceeded } from '../payments';
import { RefundsService } from './refunds.service';

/** The reason of the refund of a capture's excess (decisions section 13). */
export const EXCESS_CAPTURE = 'excess_capture';
/** The reason of the refund of a capture of another amount than asked (decisions section 13). */
export const AMOUNT_MISMATCH = 'amount_mismatch';

/**
 * A capture that brought more than its invoice needed (already PAID or VOID,
 * or less due than captured) has its excess refunded at once, automatically,
 * in the capture's own transaction. It runs after the invoice has counted
 * the capture (AFTER_SETTLE), when the excess is known.
 */
@Injectable()
export class ExcessRefundSubscriber {
  constructor(private readonly refunds: RefundsService) {}

  @OnDomainEvent(PaymentSucceeded, { order: HandlerOrder.AFTER_SETTLE })
  async onCapture(fact: PaymentSucceeded): Promise<void> {
    if (fact.excessMinor <= 0) return;
    await this.refunds.openAutomatic(
      fact.payment,
      fact.excessMinor,
      fact.amountMismatch ? AMOUNT_MISMATCH : EXCESS_CAPTURE,
    );
  }
}
