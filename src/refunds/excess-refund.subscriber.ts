import { Injectable } from '@nestjs/common';

import { OnDomainEvent } from '../common/domain-events';
import { CaptureSettled } from '../payments';
import { RefundsService } from './refunds.service';

/** The reason of the refund of a capture's excess (decisions section 13). */
export const EXCESS_CAPTURE = 'excess_capture';
/** The reason of the refund of a capture of another amount than asked (decisions section 13). */
export const AMOUNT_MISMATCH = 'amount_mismatch';

/**
 * A capture that brought more than its invoice needed (already PAID or VOID,
 * or less due than captured), or another amount than asked, has its excess
 * refunded at once, automatically, in the capture's own transaction: on the
 * capture's CaptureSettled, which says what the invoice did not count.
 */
@Injectable()
export class ExcessRefundSubscriber {
  constructor(private readonly refunds: RefundsService) {}

  @OnDomainEvent(CaptureSettled)
  async onCaptureSettled(settled: CaptureSettled): Promise<void> {
    if (settled.excessMinor === 0) return;
    await this.refunds.openAutomatic(
      settled.payment,
      settled.excessMinor,
      settled.mismatch ? AMOUNT_MISMATCH : EXCESS_CAPTURE,
    );
  }
}
