import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock/clock';
import { OnDomainEvent } from '../common/domain-events';
import { PaymentSucceeded } from '../payments';
import { RefundFailed, RefundPending, RefundSucceeded } from '../refunds';
import { LedgerService } from './ledger.service';

/**
 * The ledger posts every money movement in the transaction that made it
 * happen: a capture (a late one too, when the payment is revived, never
 * before), a refund's reservation, its success, or the release of a failed
 * one. Settlement lines are posted by reconciliation's import.
 */
@Injectable()
export class LedgerPostingsSubscriber {
  constructor(
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
  ) {}

  @OnDomainEvent(PaymentSucceeded)
  async onCapture(fact: PaymentSucceeded): Promise<void> {
    const p = fact.payment;
    await this.ledger.post(
      fact.scope,
      'capture',
      p.id,
      p.succeededAt ?? this.clock.now(),
      p.amountMinor,
    );
  }

  @OnDomainEvent(RefundPending)
  async onRefundAccepted(fact: RefundPending): Promise<void> {
    await this.post(fact, 'refund_reserved');
  }

  @OnDomainEvent(RefundSucceeded)
  async onRefunded(fact: RefundSucceeded): Promise<void> {
    await this.post(fact, 'refund_succeeded');
  }

  @OnDomainEvent(RefundFailed)
  async onRefundFailed(fact: RefundFailed): Promise<void> {
    await this.post(fact, 'refund_released');
  }

  private post(
    fact: RefundPending | RefundSucceeded | RefundFailed,
    kind: 'refund_reserved' | 'refund_succeeded' | 'refund_released',
  ) {
    return this.ledger.post(
      fact.scope,
      kind,
      fact.refund.id,
      this.clock.now(),
      fact.refund.amountMinor,
    );
  }
}
