import { AppConfig } from '../config/app-config';
import { LoginThrottleService } from './login-throttle.service';

describe('LoginThrottleService hashing cap', () => {
  it('runs at most loginHashConcurrency checks at once; beyond that 429 at once, and room frees up after', async () => {
    const config = new AppConfig({
      port: 0,
      databaseUrl: 'postgres://unused',
      jwtSecret: 'x'.repeat(32),
      encryptionKeyHex: '0'.repeat(64),
      loginHashConcurrency: 4,
    });
    const throttle = new LoginThrottleService(null as never, config, null as never, null as never);
    const releases: (() => void)[] = [];
    const running = Array.from({ length: 4 }, () =>
      throttle.withinHashingCap(() => new Promise<void>((ok) => releases.push(ok))),
    );
    await expect(throttle.withinHashingCap(async () => 'fifth')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      headers: { 'Retry-After': '1' },
    });
    releases.forEach((release) => release());
    await Promise.all(running);
    await expect(throttle.withinHashingCap(async () => 'after')).resolves.toBe('after');
  });
});
