import { TransactionHost } from '@nestjs-cls/transactional';

import type { AuditService } from '../audit';
import { ManualClock } from '../common/clock/clock';
import { AppConfig } from '../config/app-config';
import type { LoginThrottleRepository } from './login-throttle.repository';
import { LoginThrottleService } from './login-throttle.service';

const configWith = (values: Partial<ConstructorParameters<typeof AppConfig>[0]> = {}) =>
  new AppConfig({
    port: 0,
    databaseUrl: 'postgres://unused',
    jwtSecret: 'x'.repeat(32),
    encryptionKeyHex: '0'.repeat(64),
    ...values,
  });

/**
 * login_throttles and login_known_addresses in memory, with the repository's
 * semantics; every call is counted, and calls naming a key of `held` wait
 * until `release()` (a slow database for that attempt alone).
 */
class FakeThrottles {
  rows = new Map<string, { windowStart: number; lastAt: number; failures: number }>();
  known = new Map<string, number>();
  calls = 0;
  held = new Set<string>();
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;

  hold(keys: string[]): void {
    keys.forEach((k) => this.held.add(k));
    this.gate = new Promise((ok) => (this.open = ok));
  }
  release(): void {
    this.held.clear();
    this.open();
  }
  private async call(keys: string[]): Promise<void> {
    this.calls++;
    if (keys.some((k) => this.held.has(k))) await this.gate;
  }

  async addFailure(key: string, now: Date, windowStart: Date, limit: number) {
    await this.call([key]);
    const row = this.rows.get(key);
    if (!row) {
      this.rows.set(key, { windowStart: now.getTime(), lastAt: now.getTime(), failures: 1 });
      return 1;
    }
    if (row.failures >= limit && row.lastAt > windowStart.getTime()) return null;
    const restart = row.windowStart <= windowStart.getTime();
    row.failures = restart ? 1 : row.failures + 1;
    if (restart) row.windowStart = now.getTime();
    row.lastAt = now.getTime();
    return row.failures;
  }
  async lastFailureAt(key: string) {
    await this.call([key]);
    return new Date(this.rows.get(key)!.lastAt);
  }
  async remove(key: string) {
    await this.call([key]);
    this.rows.delete(key);
  }
  async standing(keys: string[], knownKey: string, since: Date) {
    await this.call([...keys, knownKey]);
    return {
      known: (this.known.get(knownKey) ?? -Infinity) >= since.getTime(),
      counters: keys.flatMap((key) => {
        const row = this.rows.get(key);
        return row ? [{ key, failures: row.failures, lastAt: new Date(row.lastAt) }] : [];
      }),
    };
  }
  async takeBackOne(keys: { key: string; limit: number }[]) {
    await this.call(keys.map((k) => k.key));
    for (const { key, limit } of keys) {
      const row = this.rows.get(key);
      if (row && row.failures < limit) row.failures = Math.max(row.failures - 1, 0);
    }
  }
  async rememberSuccess(key: string, _account: string, at: Date) {
    await this.call([key]);
    this.known.set(key, at.getTime());
  }
}

describe('LoginThrottleService', () => {
  // No database here: a "transaction" just runs its work.
  beforeAll(() => {
    jest.spyOn(TransactionHost, 'getInstance').mockReturnValue({
      withTransaction: (_p: unknown, _o: unknown, work: () => Promise<unknown>) => work(),
    } as never);
  });
  afterAll(() => jest.restoreAllMocks());

  const setUp = (values: Partial<ConstructorParameters<typeof AppConfig>[0]> = {}) => {
    const repo = new FakeThrottles();
    const audit = { record: jest.fn(async () => undefined) };
    const config = configWith({
      loginFailuresPerEmailAddress: 5,
      loginFailuresPerEmail: 50,
      loginFailuresPerAddress: 100,
      loginHashConcurrency: 1,
      ...values,
    });
    const throttle = new LoginThrottleService(
      repo as unknown as LoginThrottleRepository,
      config,
      new ManualClock(),
      audit as unknown as AuditService,
    );
    let hashes = 0;
    /** One login: `right` is whether the password matches; every call of the check counts as a hash. */
    const login = (email: string, address: string, right: boolean) =>
      throttle.check(throttle.keysOf(email, address), async () => {
        hashes++;
        return right;
      });
    return { repo, throttle, login, hashes: () => hashes };
  };

  it('runs at most loginHashConcurrency checks at once per lane; beyond that 429 at once, and room frees up after', async () => {
    const throttle = new LoginThrottleService(
      null as never,
      configWith({ loginHashConcurrency: 4 }),
      null as never,
      null as never,
    );
    const releases: (() => void)[] = [];
    const running = Array.from({ length: 4 }, () =>
      throttle.withinHashingCap(() => new Promise<void>((ok) => releases.push(ok))),
    );
    await expect(throttle.withinHashingCap(async () => 'fifth')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      headers: { 'Retry-After': '1' },
    });
    // The known addresses' lane is not the general lane: it has room of its own.
    await expect(throttle.withinHashingCap(async () => 'known', 'known')).resolves.toBe('known');
    releases.forEach((release) => release());
    await Promise.all(running);
    await expect(throttle.withinHashingCap(async () => 'after')).resolves.toBe('after');
  });

  it('a locked attempt is refused before it takes a hashing slot, however slow its lookups are', async () => {
    const { repo, throttle, login } = setUp();
    for (let i = 0; i < 5; i++)
      await expect(login('a@x.test', '198.51.100.1', false)).resolves.toBe(false);
    // The locked attempt's every lookup is slow; it must not hold the only slot meanwhile.
    const locked = throttle.keysOf('a@x.test', '198.51.100.1');
    repo.hold([locked.pairKey, locked.knownKey]);
    const refused = login('a@x.test', '198.51.100.1', true);
    await expect(login('b@x.test', '198.51.100.2', true)).resolves.toBe(true);
    repo.release();
    await expect(refused).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('refused attempts never hash, wrong passwords count, and a lock once seen costs no lookup', async () => {
    const { repo, login, hashes } = setUp();
    for (let i = 0; i < 5; i++) await login('a@x.test', '198.51.100.1', false);
    expect(hashes()).toBe(5);
    await expect(login('a@x.test', '198.51.100.1', true)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    const calls = repo.calls;
    for (let i = 0; i < 20; i++)
      await expect(login('a@x.test', '198.51.100.1', true)).rejects.toMatchObject({
        code: 'RATE_LIMITED',
      });
    expect(hashes()).toBe(5);
    expect(repo.calls).toBe(calls);
  });

  it('a success lifts the email lock only for its own address, and known-address failures do not feed the email lock', async () => {
    const { login } = setUp({ loginFailuresPerEmail: 3 });
    await expect(login('a@x.test', '192.0.2.1', true)).resolves.toBe(true);
    // The known address's own wrong passwords: its pair's budget, not the email's.
    for (let i = 0; i < 4; i++) await login('a@x.test', '192.0.2.1', false);
    await expect(login('a@x.test', '192.0.2.1', true)).resolves.toBe(true);
    // The email's 3 failures come from elsewhere (not from the 4 above): it locks at the third.
    for (let i = 1; i <= 3; i++)
      await expect(login('a@x.test', `198.51.100.${i}`, false)).resolves.toBe(false);
    await expect(login('a@x.test', '198.51.100.9', true)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    await expect(login('a@x.test', '192.0.2.1', true)).resolves.toBe(true);
    await expect(login('a@x.test', '198.51.100.9', true)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
  });
});
