import type { TenantScope } from '../database/tenant';
import type { Payment } from './payment.entity';

/**
 * What payments need from invoices, implemented by the invoices module and
 * registered at start-up (invoices depend on payments, never the reverse).
 * Both run inside the payment's transaction.
 */
export interface InvoiceLink {
  /** Locks the invoice (FOR UPDATE); throws unless it is in scope, payable, and `amountMinor` fits what is due. */
  assertPayable(scope: TenantScope, invoiceId: number, amountMinor: number): Promise<void>;
  /** A payment of this invoice succeeded: add it to the invoice and emit invoice events. */
  onPaymentSucceeded(scope: TenantScope, payment: Payment): Promise<void>;
}
