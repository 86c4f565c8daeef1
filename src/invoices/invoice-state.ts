/**
 * Invoice status follows its payments:
 *   ISSUED -> PARTIALLY_PAID -> PAID, ISSUED -> VOID (only while nothing is paid).
 */
export type InvoiceStatus = 'ISSUED' | 'PARTIALLY_PAID' | 'PAID' | 'VOID';
export const INVOICE_STATUSES: readonly InvoiceStatus[] = [
  'ISSUED',
  'PARTIALLY_PAID',
  'PAID',
  'VOID',
];

export function amountDue(totalMinor: number, paidMinor: number): number {
  return Math.max(0, totalMinor - paidMinor);
}

/** What is still to pay on an invoice; nothing once it is void. */
export function amountDueOf(i: {
  status: InvoiceStatus;
  totalMinor: number;
  amountPaidMinor: number;
}): number {
  return i.status === 'VOID' ? 0 : amountDue(i.totalMinor, i.amountPaidMinor);
}

export function isPayable(status: InvoiceStatus): boolean {
  return status === 'ISSUED' || status === 'PARTIALLY_PAID';
}

/** The status after `amountMinor` more is paid, and the event it causes. */
export function afterPayment(
  status: InvoiceStatus,
  totalMinor: number,
  paidMinor: number,
  amountMinor: number,
): {
  status: InvoiceStatus;
  paidMinor: number;
  event: 'invoice.paid' | 'invoice.partially_paid' | null;
} {
  const paid = paidMinor + amountMinor;
  // A payment that settles on a voided or already paid invoice is still recorded (to be refunded).
  if (status === 'VOID' || status === 'PAID') return { status, paidMinor: paid, event: null };
  if (paid >= totalMinor) return { status: 'PAID', paidMinor: paid, event: 'invoice.paid' };
  return { status: 'PARTIALLY_PAID', paidMinor: paid, event: 'invoice.partially_paid' };
}

export function canVoid(status: InvoiceStatus, paidMinor: number): boolean {
  return status === 'ISSUED' && paidMinor === 0;
}

/** `INV-000001` style, growing past six digits when needed. */
export function formatInvoiceNumber(n: number): string {
  return `INV-${String(n).padStart(6, '0')}`;
}
