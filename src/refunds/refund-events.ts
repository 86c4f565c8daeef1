import { DomainEvent, OutboxEntry } from '../common/domain-events';
import type { TenantScope } from '../database/tenant';
import type { Refund, RefundStatus } from './refund.entity';

/** Facts about refunds, published in the transaction that changed the refund. */
export abstract class RefundFact extends DomainEvent {
  abstract readonly type: 'refund.pending' | 'refund.succeeded' | 'refund.failed';

  constructor(
    scope: TenantScope,
    readonly refund: Readonly<Refund>,
    /** Null when the refund was just created. */
    readonly previousStatus: RefundStatus | null,
    readonly customerReference: string,
  ) {
    super(scope);
  }

  outbox(): OutboxEntry {
    const r = this.refund;
    return {
      type: this.type,
      data: {
        refund_id: r.id,
        payment_id: r.paymentId,
        invoice_id: r.invoiceId,
        previous_status: this.previousStatus?.toLowerCase() ?? null,
        amount_minor: r.amountMinor,
        currency: r.currency,
        customer_reference: this.customerReference,
        reason: r.reason,
        approval_required: r.approvalRequired,
        gateway_refund_id: r.gatewayRefundId,
        failure_reason: r.failureReason,
      },
    };
  }
}

/** Accepted (and perhaps awaiting approval): its amount is reserved from what the merchant is owed. */
export class RefundPending extends RefundFact {
  readonly type = 'refund.pending';
}

export class RefundSucceeded extends RefundFact {
  readonly type = 'refund.succeeded';
}

/** Refused by the gateway or rejected by an operator: the reservation is released. */
export class RefundFailed extends RefundFact {
  readonly type = 'refund.failed';
}
