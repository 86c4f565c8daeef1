/**
 * The chart of accounts and what each money movement posts. Pure: amounts
 * in BIGINT minor units (JS safe integers), every posting balanced.
 *
 *   gateway_clearing  what the gateway owes us (debit balance)
 *   merchant_payable  what we owe the merchant (credit balance: negative)
 *   refunds_pending   refunds accepted but not yet done at the gateway
 *   gateway_fees      what the gateway kept (expense)
 *   bank              what the gateway paid out to the bank
 */
export const LEDGER_ACCOUNTS = [
  'gateway_clearing',
  'merchant_payable',
  'refunds_pending',
  'gateway_fees',
  'bank',
] as const;
export type LedgerAccount = (typeof LEDGER_ACCOUNTS)[number];

export type LedgerKind =
  'capture' | 'refund_reserved' | 'refund_succeeded' | 'refund_released' | 'settlement';

export interface Posting {
  account: LedgerAccount;
  debitMinor: number;
  creditMinor: number;
}

const dr = (account: LedgerAccount, minor: number): Posting => ({
  account,
  debitMinor: minor,
  creditMinor: 0,
});
const cr = (account: LedgerAccount, minor: number): Posting => ({
  account,
  debitMinor: 0,
  creditMinor: minor,
});

/** The postings of one movement; zero-amount lines are left out. */
export function postingsFor(kind: LedgerKind, amountMinor: number, feeMinor = 0): Posting[] {
  if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0)
    throw new Error(`A ledger amount must be a positive integer of minor units (${amountMinor})`);
  if (!Number.isSafeInteger(feeMinor) || feeMinor < 0 || feeMinor > amountMinor)
    throw new Error(`A fee must be 0..amount (${feeMinor})`);
  switch (kind) {
    case 'capture':
      return [dr('gateway_clearing', amountMinor), cr('merchant_payable', amountMinor)];
    case 'refund_reserved':
      return [dr('merchant_payable', amountMinor), cr('refunds_pending', amountMinor)];
    case 'refund_succeeded':
      return [dr('refunds_pending', amountMinor), cr('gateway_clearing', amountMinor)];
    case 'refund_released':
      return [dr('refunds_pending', amountMinor), cr('merchant_payable', amountMinor)];
    case 'settlement':
      return [
        ...(amountMinor - feeMinor > 0 ? [dr('bank', amountMinor - feeMinor)] : []),
        ...(feeMinor > 0 ? [dr('gateway_fees', feeMinor)] : []),
        cr('gateway_clearing', amountMinor),
      ];
  }
}
