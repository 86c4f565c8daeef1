/**
 * The retry schedule: after the first failed attempt
 * wait 10 s, then 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 2 h (about 6 h in
 * all), each +-20 % jitter; a failure after the last retry parks the delivery.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  10_000,
  60_000,
  5 * 60_000,
  15 * 60_000,
  30 * 60_000,
  60 * 60_000,
  2 * 60 * 60_000,
  2 * 60 * 60_000,
];

export const RETRY_JITTER = 0.2;

/** Attempts in one cycle (first try plus retries) before a delivery parks. */
export const MAX_ATTEMPTS_PER_CYCLE = RETRY_DELAYS_MS.length + 1;

/**
 * Delay before the next attempt after `failedInCycle` failed attempts of the
 * current cycle (1 = the first attempt failed), or null when the delivery
 * must park. `random` is in [0, 1).
 */
export function nextRetryDelayMs(
  failedInCycle: number,
  random: number = Math.random(),
): number | null {
  if (!Number.isInteger(failedInCycle) || failedInCycle < 1)
    throw new Error('failedInCycle must be a positive integer');
  const base = RETRY_DELAYS_MS[failedInCycle - 1];
  if (base === undefined) return null;
  const factor = 1 - RETRY_JITTER + 2 * RETRY_JITTER * random;
  return Math.round(base * factor);
}
