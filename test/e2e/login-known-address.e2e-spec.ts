import type { IncomingMessage, ServerResponse } from 'node:http';

import { LoginThrottleService } from '../../src/auth';
import * as crypto from '../../src/common/crypto/crypto';
import { adminWith } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

const PASSWORD = 'admin-password-123';

/**
 * Decisions section 14, amendment "Section 14, logins" (issue 56): refused
 * and throttled attempts never run the password hash, and no flood of wrong
 * passwords from other addresses or for other emails keeps an admin out of
 * its account from a known address; a success lifts the email lock only for
 * its own address. Known addresses: the account's 10 most recent, 30 days.
 */
describe('logins from a known address', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Two hashes at once in the general lane: a flood of other emails keeps it full.
    t = await createTestApp({ config: { loginFailuresPerEmail: 8, loginHashConcurrency: 2 } });
  });
  afterAll(() => t.close());

  const attempt = (email: string, password: string, from: string) =>
    t.http().post('/api/v1/auth/login').set('X-Forwarded-For', from).send({ email, password });
  const statusOf = (email: string, password: string, from: string) =>
    attempt(email, password, from).then((r) => r.status);
  /** The flood's attempts: plain fetch on kept-alive connections, the lightest client at hand. */
  const flooding = (email: string, password: string, from: string) =>
    fetch(`${t.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify({ email, password }),
    }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });

  it('under a flood of wrong passwords the right one from the known address is accepted 10 times out of 10 within 2 s; nothing answered 429 was hashed', async () => {
    const admin = await adminWith(t, []);
    const known = '192.0.2.10';
    expect(await statusOf(admin.email, PASSWORD, known)).toBe(200);
    // How long the service takes over each of the admin's requests, from its arrival to its
    // answer. (This process is also the flood's client: its own work on 50 requests at once
    // is not the service's, and is left out.)
    const served: number[] = [];
    const timeKnown = (req: IncomingMessage, res: ServerResponse) => {
      if (req.headers['x-forwarded-for'] !== known) return;
      const arrived = Date.now();
      res.on('finish', () => served.push(Date.now() - arrived));
    };
    t.app.getHttpServer().on('request', timeKnown);
    const hashes = jest.spyOn(crypto, 'verifyPassword');
    try {
      const flood: number[] = [];
      const mine: number[] = [];
      let other = 0;
      // 10 bursts of 50 wrong passwords, each fired at once, and the admin's right one after them.
      for (let round = 0; round < 10; round++) {
        const burst = [
          // The admin's email from one address: its pair locks after 5.
          ...Array.from({ length: 25 }, (_, i) =>
            flooding(admin.email, `wrong-${round}-${i}`, '203.0.113.66'),
          ),
          // The admin's email from addresses all over: the email locks after 8.
          ...Array.from({ length: 5 }, (_, i) =>
            flooding(admin.email, `wrong-${round}-${i}`, `198.51.${round}.${i + 1}`),
          ),
          // Other emails from one address, each a pair of its own: the general lane stays busy.
          ...Array.from({ length: 20 }, () =>
            flooding(`nobody-${other++}@joma.test`, 'wrong-password', '203.0.113.67'),
          ),
        ];
        const right = flooding(admin.email, PASSWORD, known);
        flood.push(...(await Promise.all(burst)));
        mine.push(await right);
      }
      expect(mine).toEqual(Array(10).fill(200));
      // The one time the decision fixes.
      expect(served).toHaveLength(10);
      for (const ms of served) expect(ms).toBeLessThan(2000);
      const count = (s: number) => flood.filter((f) => f === s).length;
      expect(count(401) + count(429)).toBe(500);
      expect(count(429)).toBeGreaterThan(400);
      // One hash per answer that reached the password check (401s and the admin's 200s), none for a 429.
      expect(hashes).toHaveBeenCalledTimes(count(401) + 10);
      // The flood locked the email: other addresses are refused even with the right password.
      expect(await statusOf(admin.email, PASSWORD, '198.51.200.1')).toBe(429);
    } finally {
      hashes.mockRestore();
      t.app.getHttpServer().off('request', timeKnown);
    }
  });

  it('a success from one address lifts the email lock for that address only', async () => {
    const admin = await adminWith(t, []);
    const a = '192.0.2.20';
    const b = '198.51.100.50';
    expect(await statusOf(admin.email, PASSWORD, a)).toBe(200);
    for (let i = 1; i <= 8; i++)
      expect(await statusOf(admin.email, `wrong-${i}`, `198.51.100.${i}`)).toBe(401);
    expect(await statusOf(admin.email, PASSWORD, b)).toBe(429);
    expect(await statusOf(admin.email, PASSWORD, a)).toBe(200);
    const stillLocked = await attempt(admin.email, PASSWORD, b);
    expect(stillLocked.status).toBe(429);
    expect(Number(stillLocked.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(await statusOf(admin.email, PASSWORD, a)).toBe(200);
    expect(await statusOf(admin.email, PASSWORD, b)).toBe(429);
    // In the table too (what another replica sees): the email's count is still at its limit.
    const { emailKey } = t.app.get(LoginThrottleService).keysOf(admin.email, b);
    const held = await t.db.query('SELECT failures FROM login_throttles WHERE key = $1', [
      emailKey,
    ]);
    expect(held.rows).toEqual([{ failures: 8 }]);
  });

  it('an account keeps its 10 most recent known addresses', async () => {
    const admin = await adminWith(t, []); // (logged in from 127.0.0.1: the oldest)
    for (let i = 1; i <= 11; i++) {
      t.clock.advance(1000);
      expect(await statusOf(admin.email, PASSWORD, `192.0.2.${100 + i}`)).toBe(200);
    }
    for (let i = 1; i <= 8; i++)
      expect(await statusOf(admin.email, `wrong-${i}`, `198.51.101.${i}`)).toBe(401);
    // The two oldest are forgotten: the email lock refuses them like any other address.
    expect(await statusOf(admin.email, PASSWORD, '192.0.2.101')).toBe(429);
    expect(
      (await t.http().post('/api/v1/auth/login').send({ email: admin.email, password: PASSWORD }))
        .status,
    ).toBe(429);
    expect(await statusOf(admin.email, PASSWORD, '192.0.2.102')).toBe(200);
    expect(await statusOf(admin.email, PASSWORD, '192.0.2.111')).toBe(200);
  });
});
