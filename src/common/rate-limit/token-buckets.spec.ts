import fc from 'fast-check';

import { TokenBuckets } from './token-buckets';

describe('TokenBuckets', () => {
  it('allows a burst of 2x the rate, then one per 1/rate seconds', () => {
    const b = new TokenBuckets(10, 20);
    for (let i = 0; i < 20; i++) expect(b.take('app', 1000)).toBe(0);
    expect(b.take('app', 1000)).toBe(1);
    // 100 ms later one token has flowed in.
    expect(b.take('app', 1100)).toBe(0);
    expect(b.take('app', 1100)).toBe(1);
  });

  it('keeps keys apart', () => {
    const b = new TokenBuckets(1, 1);
    expect(b.take('a', 0)).toBe(0);
    expect(b.take('a', 0)).toBe(1);
    expect(b.take('b', 0)).toBe(0);
  });

  it('asks to wait the whole seconds until a token is back', () => {
    const b = new TokenBuckets(0.25, 1);
    expect(b.take('k', 0)).toBe(0);
    expect(b.take('k', 0)).toBe(4);
    expect(b.take('k', 3000)).toBe(1);
    expect(b.take('k', 4000)).toBe(0);
  });

  it('never allows more than burst + rate x elapsed over any run of requests', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 300 }),
        (rate, gaps) => {
          const b = new TokenBuckets(rate, 2 * rate);
          let now = 0;
          let allowed = 0;
          for (const gap of gaps) {
            now += gap;
            if (b.take('k', now) === 0) allowed++;
          }
          expect(allowed).toBeLessThanOrEqual(2 * rate + (rate * now) / 1000 + 1e-9);
        },
      ),
    );
  });

  it('stays within its key budget under a flood of new keys', () => {
    const b = new TokenBuckets(20, 40, 1000);
    for (let i = 0; i < 10_000; i++) b.take(`ip-${i}`, i);
    expect(b.size).toBeLessThanOrEqual(1000);
  });
});
