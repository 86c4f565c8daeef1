import { AppConfig } from '../../config/app-config';
import { ManualClock } from '../clock/clock';
import { AppError } from '../errors/app-error';
import { clientKey, RateLimiter } from './rate-limiter';

const frozen = (): ManualClock => {
  const clock = new ManualClock();
  clock.freeze();
  return clock;
};

const config = (values: Partial<ConstructorParameters<typeof AppConfig>[0]>) =>
  new AppConfig({
    port: 0,
    databaseUrl: 'postgres://x',
    jwtSecret: 'x',
    encryptionKeyHex: '00',
    ...values,
  });

describe('RateLimiter', () => {
  it('allows 2x the app rate at once, then 429 RATE_LIMITED with Retry-After', () => {
    const limiter = new RateLimiter(config({ rateLimitPerSecond: 5 }), frozen());
    for (let i = 0; i < 10; i++) limiter.takeApp(1, 'TEST');
    let refused: unknown;
    try {
      limiter.takeApp(1, 'TEST');
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', headers: { 'Retry-After': '1' } });
    // An AppError (the filter's envelope), built without a stack trace: a flood makes thousands.
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as Error).stack).toBe('AppError: Too many requests; retry after 1 s');
    expect(Error.stackTraceLimit).toBeGreaterThan(0);
    // Made once per wait and thrown again: a refusal allocates no error of its own.
    expect(() => limiter.takeApp(1, 'TEST')).toThrow(refused as AppError);
    try {
      limiter.takeApp(1, 'TEST');
    } catch (again) {
      expect(again).toBe(refused);
    }
    // The other mode and other apps have their own buckets.
    expect(() => limiter.takeApp(1, 'LIVE')).not.toThrow();
    expect(() => limiter.takeApp(2, 'TEST')).not.toThrow();
  });

  it('answers the 429 instead of throwing it, for middleware (app calls and public pages alike)', () => {
    const limiter = new RateLimiter(
      config({ rateLimitPerSecond: 1, publicRateLimitPerSecond: 1 }),
      frozen(),
    );
    expect([1, 2].map(() => limiter.appRefusal(7, 'LIVE'))).toEqual([null, null]);
    const refused = limiter.appRefusal(7, 'LIVE');
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', headers: { 'Retry-After': '1' } });
    // The same bucket as takeApp's: it refuses the same 429 object.
    expect(() => limiter.takeApp(7, 'LIVE')).toThrow(refused!);
    expect(limiter.appRefusal(7, 'TEST')).toBeNull();
    expect([1, 2].map(() => limiter.clientRefusal('203.0.113.9'))).toEqual([null, null]);
    expect(limiter.clientRefusal('203.0.113.9')).toBe(refused);
    expect(limiter.clientRefusal('203.0.113.10')).toBeNull();
  });

  it('refills as time passes', () => {
    const clock = frozen();
    const limiter = new RateLimiter(config({ rateLimitPerSecond: 1 }), clock);
    limiter.takeApp(1, 'TEST');
    limiter.takeApp(1, 'TEST');
    expect(() => limiter.takeApp(1, 'TEST')).toThrow();
    clock.advance(1000);
    expect(() => limiter.takeApp(1, 'TEST')).not.toThrow();
  });

  it('0 turns a limit off', () => {
    const limiter = new RateLimiter(
      config({ rateLimitPerSecond: 0, publicRateLimitPerSecond: 0 }),
      frozen(),
    );
    for (let i = 0; i < 10_000; i++) {
      limiter.takeApp(1, 'TEST');
      expect(limiter.clientRefusal('203.0.113.1')).toBeNull();
    }
  });

  it('each of N replicas allows 1/N of the limit', () => {
    const limiter = new RateLimiter(
      config({ rateLimitPerSecond: 100, rateLimitReplicas: 4 }),
      frozen(),
    );
    let allowed = 0;
    for (let i = 0; i < 1000; i++) {
      try {
        limiter.takeApp(1, 'LIVE');
        allowed++;
      } catch {
        break;
      }
    }
    expect(allowed).toBe(50); // burst of 2 x 25
  });
});

describe('clientKey', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    [undefined, 'unknown'],
  ])('%s -> %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });
});
