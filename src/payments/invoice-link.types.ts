import type { TenantScope } from '../database/tenant';
import type { Payment } from './payment.entity';

/**
 * What payments need from invoices, implemented by the invoices module and
 * registered at start-up (invoices depend on payments, never the reverse).
 * Both run inside the payment's transaction.
 */
export interface InvoiceLink {
  /**
   * Locks the invoice (FOR UPDATE); throws unless it is in scope and payable.
   * Returns what is due and whose invoice it is.
   */
  assertPayable(
    scope: TenantScope,
    invoiceId: number,
  ): Promise<{ dueMinor: number; customerId: number }>;
  /** Locks the invoice; what of this captured payment the invoice would not count (its excess). */
  excessOf(scope: TenantScope, payment: Payment): Promise<number>;
  /** A payment of this invoice succeeded: count it (less its excess) and emit invoice events. */
  onPaymentSucceeded(scope: TenantScope, payment: Payment): Promise<void>;
}
