import { DomainEvent, OutboxEntry } from '../common/domain-events';
import type { TenantScope } from '../database/tenant';
import type { Payment } from './payment.entity';
import { paymentEventData } from './payment.mapper';
import type { PaymentEventType, PaymentStatus } from './payment-state';

/**
 * Facts about payments, published inside the transaction that changed the
 * payment. Subscribe with @OnDomainEvent(PaymentSucceeded) and so on; a
 * subscriber of PaymentStatusChanged hears all of them.
 */
export abstract class PaymentStatusChanged extends DomainEvent {
  abstract readonly type: PaymentEventType;

  constructor(
    scope: TenantScope,
    /** The payment as saved, in its new status. */
    readonly payment: Readonly<Payment>,
    readonly previousStatus: PaymentStatus,
    readonly customerReference: string,
  ) {
    super(scope);
  }

  outbox(): OutboxEntry {
    return {
      type: this.type,
      data: paymentEventData(this.payment, this.previousStatus, this.customerReference),
    };
  }
}

/**
 * Money was captured. A subscriber that does not count all of it (an invoice
 * already paid, or needing less) says so with `leaveExcess`: the excess is
 * stored on the payment and reported in payment.succeeded.
 */
export class PaymentSucceeded extends PaymentStatusChanged {
  readonly type = 'payment.succeeded';
  private excess = 0;
  private mismatch = false;

  leaveExcess(minor: number): void {
    this.excess = Math.max(this.excess, minor);
  }

  /**
   * The gateway captured another amount than the payment asked for: none of
   * it counts on an invoice, all of it is excess, refunded with reason
   * `amount_mismatch` (decisions section 13).
   */
  markAmountMismatch(): void {
    this.mismatch = true;
    this.excess = this.payment.amountMinor;
  }

  get amountMismatch(): boolean {
    return this.mismatch;
  }

  get excessMinor(): number {
    return this.excess;
  }

  override outbox(): OutboxEntry {
    const entry = super.outbox();
    return {
      ...entry,
      data: { ...entry.data, excess_minor: this.excess, risk_level: this.payment.riskLevel },
    };
  }
}

/** A capture of a payment that had already failed, been cancelled or expired (late settlement). */
export class PaymentRevived extends PaymentSucceeded {}

export class PaymentFailed extends PaymentStatusChanged {
  readonly type = 'payment.failed';
}

export class PaymentCancelled extends PaymentStatusChanged {
  readonly type = 'payment.cancelled';
}

export class PaymentExpired extends PaymentStatusChanged {
  readonly type = 'payment.expired';
}

/** The fact for a transition the state table applied. */
export function paymentFact(
  event: PaymentEventType,
  scope: TenantScope,
  payment: Payment,
  previous: PaymentStatus,
  customerReference: string,
): PaymentStatusChanged {
  switch (event) {
    case 'payment.succeeded':
      return previous === 'PENDING'
        ? new PaymentSucceeded(scope, payment, previous, customerReference)
        : new PaymentRevived(scope, payment, previous, customerReference);
    case 'payment.failed':
      return new PaymentFailed(scope, payment, previous, customerReference);
    case 'payment.cancelled':
      return new PaymentCancelled(scope, payment, previous, customerReference);
    case 'payment.expired':
      return new PaymentExpired(scope, payment, previous, customerReference);
  }
}
