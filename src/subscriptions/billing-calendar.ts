/**
 * Billing dates. Subscriptions live on calendar dates in Asia/Dhaka
 * (UTC+06:00 all year: Bangladesh has no daylight saving time). A date is a
 * 'YYYY-MM-DD' string; a date's moment is its midnight in Dhaka.
 *
 * Periods follow Stripe's rule: every period end is computed from the
 * billing anchor (never from the previous end), and a day the month does not
 * have becomes its last day. Anchored on 31 Jan, monthly: 28 (or 29) Feb,
 * 31 Mar, 30 Apr, 31 May...
 */
import type { PriceInterval } from '../catalog';
import { addDays, DAY_MS, dhakaDate, startOfDhakaDay } from '../common/clock/dhaka-calendar';

export { addDays, DAY_MS, dhakaDate, startOfDhakaDay };

function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

/** `anchor` plus `n` months, the day clamped to the month's last (Stripe's rule). */
function addMonths(anchor: string, n: number): string {
  const [y, m, d] = anchor.split('-').map(Number);
  const total = y * 12 + (m - 1) + n;
  const year = Math.floor(total / 12);
  const month0 = total - year * 12;
  const day = Math.min(d, daysInMonth(year, month0));
  return `${String(year).padStart(4, '0')}-${String(month0 + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The date `periods` billing periods of `interval` x `intervalCount` after `anchor`. */
export function periodBoundary(
  anchor: string,
  interval: PriceInterval,
  intervalCount: number,
  periods: number,
): string {
  const n = intervalCount * periods;
  switch (interval) {
    case 'DAY':
      return addDays(anchor, n);
    case 'WEEK':
      return addDays(anchor, 7 * n);
    case 'MONTH':
      return addMonths(anchor, n);
    case 'YEAR':
      return addMonths(anchor, 12 * n);
  }
}
