import { randomInt } from 'node:crypto';

import type { GatewayOutcome } from '../payment-gateway.types';

/**
 * Nagad's formats (test/fixtures/gateways/README.md, "Headers, formats and
 * limits"): amounts, its date-time, the merchant's order id and the
 * purchase statuses of `verify/payment`.
 */

/** The largest amount Nagad's 15-character amount field can carry: 999999999999.99 taka. */
export const NAGAD_MAX_MINOR = 99_999_999_999_999;

/** Joma's minor units as Nagad's amount: a decimal string with two decimals ("0.01", "1500.50"). */
export function nagadAmount(minor: number): string {
  if (!Number.isSafeInteger(minor) || minor < 1 || minor > NAGAD_MAX_MINOR)
    throw new RangeError(`amount ${minor} is outside what Nagad's amount field carries`);
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

/**
 * Nagad's amount as minor units, exactly (no floats): "130" -> 13000, "130.5"
 * -> 13050, "130.50" -> 13050. Anything else (a number, more than two
 * decimals, more than 15 characters, a sign) is null: garbage.
 */
export function minorOfNagadAmount(value: unknown): number | null {
  if (typeof value !== 'string' || value.length > 15) return null;
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(value);
  if (!m) return null;
  const minor = Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
  return Number.isSafeInteger(minor) && minor <= NAGAD_MAX_MINOR ? minor : null;
}

/** Asia/Dhaka is UTC+6 all year (no daylight saving since 2009). */
const DHAKA_OFFSET_MS = 6 * 3600_000;

/** `yyyyMMddHHmmss` in Asia/Dhaka, zero-padded (an unpadded month failed on LIVE: issue #14). */
export function nagadDateTime(at: Date): string {
  const d = new Date(at.getTime() + DHAKA_OFFSET_MS);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    String(d.getUTCFullYear()).padStart(4, '0') +
    two(d.getUTCMonth() + 1) +
    two(d.getUTCDate()) +
    two(d.getUTCHours()) +
    two(d.getUTCMinutes()) +
    two(d.getUTCSeconds())
  );
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** How many characters of the orderId come from Joma's payment reference. */
const FROM_REFERENCE = 14;
const ORDER_ID_LENGTH = 20;

/** The part of a payment reference an orderId starts with: its first 14 letters and digits after `pay_`. */
function referencePart(reference: string): string {
  return reference
    .replace(/^pay_/, '')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, FROM_REFERENCE);
}

/**
 * Nagad's orderId for a checkout of the payment `reference` (`pay_` and 24
 * base64url characters): 20 alphanumerics (Nagad: 5 to 20), the reference's
 * first 14 letters and digits, then random ones. Not reversible (the
 * reference carries more than 20 alphanumerics can), so the payment is
 * found by Nagad's paymentReferenceId (the session id) and the orderId only
 * checked against it (`orderIdIsFor`). The random tail keeps two checkouts
 * of one payment (a racing double click) from being refused as a duplicate
 * order id of the day.
 */
export function nagadOrderId(reference: string, pick = (n: number) => randomInt(n)): string {
  let id = referencePart(reference);
  while (id.length < ORDER_ID_LENGTH) id += ALNUM[pick(ALNUM.length)];
  return id;
}

/** Whether Nagad's orderId is one `nagadOrderId` made for this payment reference. */
export function orderIdIsFor(orderId: string, reference: string): boolean {
  const part = referencePart(reference);
  return part.length > 0 && orderId.startsWith(part);
}

/** A random challenge of 40 hex characters (the merchant's, in initialize). */
export function nagadChallenge(pick = (n: number) => randomInt(n)): string {
  let out = '';
  for (let i = 0; i < 40; i++) out += '0123456789abcdef'[pick(16)];
  return out;
}

/**
 * Nagad's purchase statuses (guide v3.3 5.2.7 and the callback table),
 * lower-cased (Nagad's own example says `success`). Cancelled and
 * PartialCancelled are decided by `nagadOutcome` (money may have moved).
 */
const OUTCOMES: Record<string, GatewayOutcome> = {
  success: 'captured',
  orderinitiated: 'open',
  ready: 'open',
  inprogress: 'open',
  otpsent: 'open',
  otpverified: 'open',
  pingiven: 'open',
  aborted: 'cancelled',
  failed: 'failed',
  fraud: 'failed',
  invalidrequest: 'failed',
  unknownfailed: 'failed',
};

/**
 * What a verify answer's `status` means, or null for a status Joma cannot
 * read (unknown: the payment stays as it is and is asked again).
 * Cancelled or PartialCancelled WITH an issuer reference is a capture
 * cancelled afterwards (Nagad's cancel keeps `issuerPaymentRefNo`): money
 * moved, so captured (decisions 13: a capture is never lost). Cancelled
 * without one is a purchase cancelled before payment; PartialCancelled
 * without one cannot be (a part of nothing) and is unknown.
 */
export function nagadOutcome(status: unknown, issuerRef: string | null): GatewayOutcome | null {
  if (typeof status !== 'string') return null;
  const word = status.toLowerCase();
  if (word === 'cancelled' || word === 'partialcancelled')
    return issuerRef ? 'captured' : word === 'cancelled' ? 'cancelled' : null;
  return OUTCOMES[word] ?? null;
}
