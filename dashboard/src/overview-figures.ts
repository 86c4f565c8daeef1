import type { components } from '../../clients/typescript/src/generated/schema';

/** One Asia/Dhaka day of the chart: gross collected, refunded, net (poisha). */
export interface DayFigures {
  date: string;
  gross: bigint;
  refunded: bigint;
  net: bigint;
}

/** One day as GET /reports/daily-collections answers it. */
export type ApiDay = components['schemas']['DailyCollectionDto'];

/**
 * Each day's gross, refunded and net, as the API's daily-collections
 * answers them: gross is the day's captures ("collected" means gross,
 * decisions section 20), refunded what refunds that succeeded that day gave
 * back, net the one less the other. Bigints, so the 7 and 30 day totals
 * are exact at any size.
 */
export function dayFigures(days: ApiDay[]): DayFigures[] {
  return days.map((d) => ({
    date: d.date,
    gross: BigInt(d.collectedMinor),
    refunded: BigInt(d.refundedMinor),
    net: BigInt(d.netMinor),
  }));
}

/** The smallest 1, 2 or 5 x 10^k taka (in poisha) at or above `max`. */
export function niceTop(max: bigint): bigint {
  if (max <= 0n) return 0n;
  for (let unit = 100n; ; unit *= 10n) {
    for (const m of [1n, 2n, 5n]) if (m * unit >= max) return m * unit;
  }
}
