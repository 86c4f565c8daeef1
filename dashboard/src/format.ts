import type { Lang } from './i18n';

const BN_DIGITS = '০১২৩৪৫৬৭৮৯';

/** Western digits as Bangla digits (for figures built by hand). */
export function bnDigits(s: string): string {
  return s.replace(/[0-9]/g, (d) => BN_DIGITS[Number(d)]);
}

/**
 * Taka from integer poisha: lakh and crore grouping (12,34,567.89), Bangla
 * digits in Bangla. Taka and poisha are split with integer (BigInt)
 * arithmetic, never by dividing by 100 in floating point. A number is exact
 * up to 2^53 - 1 poisha, the largest figure the API answers (a larger one is
 * AMOUNT_OUT_OF_RANGE); a figure the dashboard adds up itself is a bigint,
 * exact at any size. A number that is not a whole count of poisha throws.
 */
export function taka(minor: number | bigint | null | undefined, lang: Lang): string {
  if (minor === null || minor === undefined) return '—';
  const exact = BigInt(minor);
  const negative = exact < 0n;
  const abs = negative ? -exact : exact;
  const whole = (abs / 100n).toString();
  const frac = (abs % 100n).toString().padStart(2, '0');
  const last3 = whole.slice(-3);
  const rest = whole.slice(0, -3);
  const grouped = rest ? `${rest.replace(/\B(?=(\d{2})+(?!\d))/g, ',')},${last3}` : last3;
  const text = `${negative ? '-' : ''}৳${grouped}.${frac}`;
  return lang === 'bn' ? bnDigits(text) : text;
}

/**
 * Taka typed by a person ("1,250.50", "৳ ১,২৫০.৫"; up to two decimals) as
 * integer poisha, or null when it is not an amount. The digits are joined
 * as text and read once as an integer, never multiplied in floating point.
 */
export function parseTaka(input: string): number | null {
  const western = input
    .trim()
    .replace(/[০-৯]/g, (d) => String(BN_DIGITS.indexOf(d)))
    .replace(/[,৳\s]/g, '');
  const m = /^(\d{1,13})(?:\.(\d{0,2}))?$/.exec(western);
  if (!m) return null;
  return Number(`${m[1]}${(m[2] ?? '').padEnd(2, '0')}`);
}

/** A quantity as typed (Bangla digits too): a whole number from 1, or null. */
export function parseQty(input: string): number | null {
  const western = input.trim().replace(/[০-৯]/g, (d) => String(BN_DIGITS.indexOf(d)));
  if (!/^\d{1,6}$/.test(western)) return null;
  const n = Number(western);
  return n >= 1 ? n : null;
}

const DHAKA = 'Asia/Dhaka';

/**
 * A date and time in Asia/Dhaka, 24-hour in both languages (Bangla never
 * with AM/PM, decisions section 20), Bengali digits in Bangla.
 */
export function dateTime(iso: string | null | undefined, lang: Lang): string {
  if (!iso) return '—';
  const text = new Intl.DateTimeFormat(lang === 'bn' ? 'bn-BD' : 'en-GB', {
    timeZone: DHAKA,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
  return digits(text, lang);
}

/** A calendar date ('2026-11-29', already a Dhaka date) as people read it. */
export function date(day: string | null | undefined, lang: Lang): string {
  if (!day) return '—';
  const text = new Intl.DateTimeFormat(lang === 'bn' ? 'bn-BD' : 'en-GB', {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  }).format(new Date(`${day.slice(0, 10)}T00:00:00Z`));
  return digits(text, lang);
}

/** A number in the language's digits, lakh grouping (12,34,567). */
export function num(n: number | bigint, lang: Lang): string {
  return digits(new Intl.NumberFormat('en-IN').format(n), lang);
}

/** The digits of a text in the language's digits (Bengali in Bangla); the rest as it is. */
export function digits(text: string, lang: Lang): string {
  return lang === 'bn' ? bnDigits(text) : text;
}

/** Today's date in Dhaka ('YYYY-MM-DD'). */
export function dhakaToday(): string {
  return dhakaDay(new Date(Date.now()).toISOString());
}

/** The Asia/Dhaka calendar day ('YYYY-MM-DD') of an instant (Dhaka keeps +06:00 all year). */
export function dhakaDay(iso: string): string {
  return new Date(Date.parse(iso) + 6 * 3600_000).toISOString().slice(0, 10);
}

/** The calendar day `n` days after `day` ('YYYY-MM-DD'; n may be negative). */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}
