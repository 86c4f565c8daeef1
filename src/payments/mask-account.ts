/**
 * A payer's wallet or card number is never stored or shown whole (decisions
 * section 11): the first two and last two characters stay, the rest become
 * `*` (`01770618575` -> `01*******75`). Already-masked numbers (SSLCommerz's
 * `432149XXXXXX0667`) are masked the same way, so no more than four
 * characters of any number are ever kept.
 */
export function maskAccount(account: string | null | undefined): string | null {
  if (!account) return account ?? null;
  if (account.length <= 4) return '*'.repeat(account.length);
  return `${account.slice(0, 2)}${'*'.repeat(account.length - 4)}${account.slice(-2)}`;
}

/** A label that shows the account (`bKash 01770618575`) with the account masked. */
export function maskIn(label: string | null, account: string | null | undefined): string | null {
  if (!label || !account) return label;
  return label.split(account).join(maskAccount(account)!);
}
