/**
 * The one percentile of the benches: the ceil(p/100 * n)-th smallest of
 * `sorted` (ascending), as bench/load.ts's generator takes it; NaN when
 * there is nothing to take it of.
 */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The p99 of unsorted latencies (ms). */
export const p99 = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    99,
  );

/** The median of unsorted figures: the upper middle one of an even count. */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A figure to two decimals, as the reports give milliseconds and ratios. */
export const round = (n: number) => Math.round(n * 100) / 100;
