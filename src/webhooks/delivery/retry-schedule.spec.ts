import fc from 'fast-check';

import { MAX_ATTEMPTS_PER_CYCLE, nextRetryDelayMs, RETRY_DELAYS_MS } from './retry-schedule';

describe('retry schedule', () => {
  it('is 10 s, 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 2 h: about 6 hours, then park', () => {
    expect(RETRY_DELAYS_MS).toEqual([
      10_000, 60_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 7_200_000,
    ]);
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeCloseTo(5.85, 2); // 5 h 51 min 10 s before jitter;
    expect(MAX_ATTEMPTS_PER_CYCLE).toBe(9);
    expect(nextRetryDelayMs(9)).toBeNull();
    expect(nextRetryDelayMs(20)).toBeNull();
  });

  it('applies +-20 % jitter', () => {
    expect(nextRetryDelayMs(1, 0)).toBe(8_000);
    expect(nextRetryDelayMs(1, 0.5)).toBe(10_000);
    expect(nextRetryDelayMs(1, 0.999999)).toBe(12_000);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const d = nextRetryDelayMs(n, r)!;
          const base = RETRY_DELAYS_MS[n - 1];
          return d >= base * 0.8 && d <= base * 1.2;
        },
      ),
    );
  });

  it('rejects a nonsensical attempt count', () => {
    expect(() => nextRetryDelayMs(0)).toThrow();
    expect(() => nextRetryDelayMs(1.5)).toThrow();
  });
});
