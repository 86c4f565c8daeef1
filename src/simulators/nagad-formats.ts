/**
 * Nagad's formats as the simulator writes and checks them
 * (test/fixtures/gateways/README.md, "Headers, formats and limits"): times
 * in Asia/Dhaka (UTC+6, no daylight saving), `yyyyMMddHHmmss` in requests,
 * amounts as decimal strings, and the guide's error codes (5.2.9.3).
 */

const DHAKA_OFFSET_MS = 6 * 3_600_000;

/** `at` in Asia/Dhaka as `yyyyMMddHHmmssSSS` (the caller takes what it needs). */
function dhakaDigits(at: Date): string {
  return new Date(at.getTime() + DHAKA_OFFSET_MS).toISOString().replace(/\D/g, '');
}

/** `yyyyMMddHHmmss` in Asia/Dhaka (acceptDateTime, payment_dt, the guide's verify dates). */
export function dhakaCompact(at: Date): string {
  return dhakaDigits(at).slice(0, 14);
}

/** `yyyy-MM-dd HH:mm:ss.S` in Asia/Dhaka (the 2021 sandbox capture's verify dates). */
export function dhakaDotted(at: Date): string {
  const d = dhakaDigits(at);
  return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)} ${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}.${d.slice(14, 15)}`;
}

/** `MMddHHmmssSSS` in Asia/Dhaka: the head of a paymentReferenceId. */
export function dhakaStamp(at: Date): string {
  return dhakaDigits(at).slice(4, 17);
}

/** The instant a `yyyyMMddHHmmss` Asia/Dhaka time names; undefined when it is not one (16_0006_081). */
export function parseDhaka(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{14}$/.test(value)) return undefined;
  const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((i) =>
    Number(value.slice(i, i + (i === 0 ? 4 : 2))),
  );
  const utc = Date.UTC(y, mo - 1, d, h, mi, s) - DHAKA_OFFSET_MS;
  // A calendar date and clock time that exist (no 13th month, no 31 June).
  return dhakaCompact(new Date(utc)) === value ? utc : undefined;
}

/** A Nagad amount (decimal string, up to 15 characters and two decimals) in minor units; undefined if not one. */
export function amountMinor(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.length > 15) return undefined;
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(value);
  if (!m) return undefined;
  const minor = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return minor > 0 && Number.isSafeInteger(minor) ? minor : undefined;
}

/** Minor units as a Nagad amount with two decimals ("101.00"). */
export function amountText(minor: number): string {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

/** The guide's error codes (v3.3, 5.2.9.3) the simulator answers, with the guide's messages. */
export const NAGAD_ERRORS = {
  '16_0006_004': 'Provided merchant ID is invalid',
  '16_0006_017': 'Purchase information state is invalid',
  '16_0006_055': 'Invalid Payment Reference Id',
  '16_0006_057': 'Decryption failed',
  '16_0006_058': 'Failed to verify signature',
  '16_0006_059': 'Invalid Sensitive Data',
  '16_0006_064': 'Mandatory Header Missing',
  '16_0006_068': 'Invalid Order Id',
  '16_0006_076': 'Transaction Date Time Not in allowed window',
  '16_0006_080': 'Invalid Currency Code',
  '16_0006_081': 'Invalid Date Time Format',
  '16_0006_083': 'Duplicate Order ID in same day',
  '16_0006_999': 'Invalid Request',
} as const;
export type NagadErrorCode = keyof typeof NAGAD_ERRORS;
