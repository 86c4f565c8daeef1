import type { components } from '../../clients/typescript/src/generated/schema';
import { dhakaDay } from './format';

type Refund = components['schemas']['RefundDto'];

/** One Asia/Dhaka day of the chart: gross collected, refunded, net (poisha). */
export interface DayFigures {
  date: string;
  gross: bigint;
  refunded: bigint;
  net: bigint;
}

export interface ApiDay {
  date: string;
  collectedMinor: number;
  payments: number;
  /** Refunds that succeeded that day, when the API gives them (see docs/dashboard.md). */
  refundedMinor?: number;
}

/**
 * Each day's gross, refunded and net. Gross is what the API's
 * daily-collections answers (captures of the day; "collected" means gross,
 * decisions section 20). Refunded is the day's `refundedMinor` when the API
 * gives it; otherwise the refunds that succeeded that day, added up here from
 * the refund list (SUCCEEDED, created in the 30 days; a refund's day is the
 * Dhaka day it last changed, which for a SUCCEEDED refund is when it
 * succeeded). Sums are bigints, exact at any size.
 */
export function dayFigures(days: ApiDay[], refunds: Refund[] | null): DayFigures[] {
  const byDay = new Map<string, bigint>();
  for (const r of refunds ?? []) {
    if (r.status !== 'SUCCEEDED') continue;
    const day = dhakaDay(r.updatedAt);
    byDay.set(day, (byDay.get(day) ?? 0n) + BigInt(r.amountMinor));
  }
  return days.map((d) => {
    const gross = BigInt(d.collectedMinor);
    const refunded =
      d.refundedMinor !== undefined ? BigInt(d.refundedMinor) : (byDay.get(d.date) ?? 0n);
    return { date: d.date, gross, refunded, net: gross - refunded };
  });
}

/** The smallest 1, 2 or 5 x 10^k taka (in poisha) at or above `max`. */
export function niceTop(max: bigint): bigint {
  if (max <= 0n) return 0n;
  for (let unit = 100n; ; unit *= 10n) {
    for (const m of [1n, 2n, 5n]) if (m * unit >= max) return m * unit;
  }
}
