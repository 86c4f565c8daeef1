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

  outbox(): OutboxEntry | null {
    return {
      type: this.type,
      data: paymentEventData(this.payment, this.previousStatus, this.customerReference),
    };
  }
}

/**
 * Money was captured. An immutable fact (frozen once made): what the capture
 * does to an invoice is not known yet, so it has no webhook form of its own.
 * The invoice side counts it and publishes the CaptureSettled that follows;
 * payment.succeeded, which reports the excess, is recorded from that.
 */
export class PaymentSucceeded extends PaymentStatusChanged {
  readonly type = 'payment.succeeded';

  constructor(
    scope: TenantScope,
    payment: Readonly<Payment>,
    previousStatus: PaymentStatus,
    customerReference: string,
    /**
     * The gateway captured another amount (or reference, or currency) than the
     * payment asked for: none of it counts on an invoice, all of it is excess,
     * refunded with reason `amount_mismatch` (decisions section 13).
     */
    readonly amountMismatch = false,
  ) {
    super(scope, payment, previousStatus, customerReference);
    // Subclasses (PaymentRevived) add no fields: the fact is complete here.
    Object.freeze(this);
  }

  /** Recorded as payment.succeeded by the CaptureSettled that follows it (it knows the excess). */
  override outbox(): null {
    return null;
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
  amountMismatch = false,
): PaymentStatusChanged {
  switch (event) {
    case 'payment.succeeded':
      return previous === 'PENDING'
        ? new PaymentSucceeded(scope, payment, previous, customerReference, amountMismatch)
        : new PaymentRevived(scope, payment, previous, customerReference, amountMismatch);
    case 'payment.failed':
      return new PaymentFailed(scope, payment, previous, customerReference);
    case 'payment.cancelled':
      return new PaymentCancelled(scope, payment, previous, customerReference);
    case 'payment.expired':
      return new PaymentExpired(scope, payment, previous, customerReference);
  }
}

/**
 * What a capture came to, once: the part its invoice counted and the excess
 * to refund (countedMinor + excessMinor is always the captured amount).
 * Published by the invoice side (invoices/invoice-settlement.subscriber.ts)
 * for every PaymentSucceeded, in its transaction: a capture of another amount
 * (`mismatch`) counts nothing, a payment tied to no invoice is counted whole.
 * What depends on the count subscribes here: the payment records its excess,
 * refunds open the excess refund, notifications the payer's receipt. Its
 * webhook form is the capture's payment.succeeded (with `excess_minor`),
 * so that event still comes before the invoice.paid the capture causes.
 */
export class CaptureSettled extends DomainEvent {
  readonly payment: Readonly<Payment>;
  readonly mismatch: boolean;

  constructor(
    /** The capture this settles. */
    readonly capture: PaymentSucceeded,
    /** What the capture's invoice counted (the whole capture when it has no invoice). */
    readonly countedMinor: number,
    /** What nothing counted: refunded at once (excess_capture, or amount_mismatch). */
    readonly excessMinor: number,
  ) {
    super(capture.scope);
    this.payment = capture.payment;
    this.mismatch = capture.amountMismatch;
    if (
      !Number.isSafeInteger(countedMinor) ||
      !Number.isSafeInteger(excessMinor) ||
      countedMinor < 0 ||
      excessMinor < 0 ||
      countedMinor + excessMinor !== capture.payment.amountMinor ||
      (this.mismatch && countedMinor !== 0)
    )
      throw new Error(
        `Capture of payment ${capture.payment.id} (${capture.payment.amountMinor}) cannot settle as ${countedMinor} counted + ${excessMinor} excess`,
      );
    Object.freeze(this);
  }

  outbox(): OutboxEntry {
    const { payment, capture } = this;
    return {
      type: capture.type,
      data: {
        ...paymentEventData(payment, capture.previousStatus, capture.customerReference),
        excess_minor: this.excessMinor,
        risk_level: payment.riskLevel,
      },
    };
  }
}
