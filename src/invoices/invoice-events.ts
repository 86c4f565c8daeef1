import { DomainEvent, OutboxEntry } from '../common/domain-events';
import type { TenantScope } from '../database/tenant';
import type { Invoice } from './invoice.entity';
import { invoiceEventData } from './invoice.mapper';

/** Facts about invoices, published inside the transaction that changed the invoice. */
export abstract class InvoiceFact extends DomainEvent {
  abstract readonly type:
    'invoice.issued' | 'invoice.paid' | 'invoice.partially_paid' | 'invoice.voided';

  constructor(
    scope: TenantScope,
    readonly invoice: Readonly<Invoice>,
    readonly customerReference: string,
    /** The payment that caused it (paid, partially paid). */
    readonly paymentId: number | null = null,
  ) {
    super(scope);
  }

  outbox(): OutboxEntry {
    const extra = this.paymentId === null ? {} : { payment_id: this.paymentId };
    return {
      type: this.type,
      data: invoiceEventData(this.invoice, this.customerReference, extra),
    };
  }
}

export class InvoiceIssued extends InvoiceFact {
  readonly type = 'invoice.issued';
}

/** Fully paid: what subscriptions (renewals) and entitlements (grants) react to. */
export class InvoicePaid extends InvoiceFact {
  readonly type = 'invoice.paid';
}

export class InvoicePartiallyPaid extends InvoiceFact {
  readonly type = 'invoice.partially_paid';
}

export class InvoiceVoided extends InvoiceFact {
  readonly type = 'invoice.voided';
}
