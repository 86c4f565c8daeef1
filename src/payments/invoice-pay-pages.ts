import type { TenantScope } from '../database/tenant';

/**
 * How the payment result page learns where a payment's invoice can still be
 * paid (decisions section 19: after a capture that could not be counted,
 * the payer is offered what is still due). Invoices sit above payments, so
 * payments only name this port; billing provides it. Without a provider
 * (an application without billing) the page simply offers no such link.
 */
export abstract class InvoicePayPages {
  /** The invoice's pay page while it still has something due (ISSUED or PARTIALLY_PAID), else null. */
  abstract whileDue(scope: TenantScope, invoiceId: number): Promise<string | null>;
}
