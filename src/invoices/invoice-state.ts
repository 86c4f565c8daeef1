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

/**
 * What a captured payment of `amountMinor` does to an invoice. The invoice
 * counts at most what it still needs (never more than its total; nothing
 * once PAID or VOID); the rest is the payment's excess, to be refunded.
 */
export function afterPayment(
  status: InvoiceStatus,
  totalMinor: number,
  paidMinor: number,
  amountMinor: number,
): {
  status: InvoiceStatus;
  paidMinor: number;
  countedMinor: number;
  excessMinor: number;
  event: 'invoice.paid' | 'invoice.partially_paid' | null;
} {
  const counted = isPayable(status) ? Math.min(amountMinor, amountDue(totalMinor, paidMinor)) : 0;
  const excessMinor = amountMinor - counted;
  if (counted === 0) return { status, paidMinor, countedMinor: 0, excessMinor, event: null };
  const paid = paidMinor + counted;
  return paid >= totalMinor
    ? { status: 'PAID', paidMinor: paid, countedMinor: counted, excessMinor, event: 'invoice.paid' }
    : {
        status: 'PARTIALLY_PAID',
        paidMinor: paid,
        countedMinor: counted,
        excessMinor,
        event: 'invoice.partially_paid',
      };
}

export function canVoid(status: InvoiceStatus, paidMinor: number): boolean {
  return status === 'ISSUED' && paidMinor === 0;
}
