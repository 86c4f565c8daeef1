import { asApp, createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Rate limits: app calls per app and mode, public pages per client address
 * (IPv6 by /64, through TRUST_PROXY), 429 RATE_LIMITED with Retry-After in
 * the envelope, 0 turns a limit off, and replicas share a limit. The clock
 * is frozen, so buckets refill only when a test moves time.
 */
describe('rate limits', () => {
  const statuses = async (n: number, send: (i: number) => Promise<{ status: number }>) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await send(i)).status);
    return out;
  };

  describe('per app and mode (RATE_LIMIT_PER_SECOND=5: a burst of 10)', () => {
    let t: TestApp;
    let app: CreatedApp;
    let other: CreatedApp;

    beforeAll(async () => {
      t = await createTestApp({ config: { rateLimitPerSecond: 5 } });
      app = await createApp(t);
      other = await createApp(t);
      t.clock.freeze();
    });
    afterAll(() => t.close());

    it('the 11th call in a second is 429 RATE_LIMITED with Retry-After; the other mode and apps are untouched; time refills', async () => {
      const list = (c: CreatedApp, mode: 'TEST' | 'LIVE' = 'TEST') =>
        t.http().get('/api/v1/payments').set(asApp(c[mode]));
      expect(await statuses(10, () => list(app))).toEqual(Array(10).fill(200));
      const refused = await list(app);
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.headers['x-request-id']).toBeTruthy();
      expect(refused.body).toMatchObject({
        data: null,
        meta: { success: false, errorCode: 'RATE_LIMITED' },
      });
      expect((await list(app, 'LIVE')).status).toBe(200);
      expect((await list(other)).status).toBe(200);
      // Writes count too, and a refused create writes nothing.
      const create = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 50000, customerReference: 'rl-1' });
      expect(create.status).toBe(429);
      const rows = await t.db.query('SELECT count(*)::int AS n FROM payments WHERE app_id = $1', [
        app.id,
      ]);
      expect(rows.rows[0].n).toBe(0);
      t.clock.advance(1000); // 5 tokens flow back in
      expect(await statuses(6, () => list(app))).toEqual([200, 200, 200, 200, 200, 429]);
    });

    it('refuses an over-limit call before reading its body; calls with a wrong secret are 401 and never counted', async () => {
      t.clock.advance(10_000);
      const fresh = await createApp(t);
      const wrong = () =>
        t
          .http()
          .get('/api/v1/payments')
          .set({ 'X-Api-Key': fresh.TEST.apiKey, 'X-Api-Secret': 'sk_test_not-the-secret' });
      expect(await statuses(20, wrong)).toEqual(Array(20).fill(401));
      const list = () => t.http().get('/api/v1/payments').set(asApp(fresh.TEST));
      expect(await statuses(10, list)).toEqual(Array(10).fill(200));
      const malformed = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(fresh.TEST))
        .set('Content-Type', 'application/json')
        .send('{not json');
      expect(malformed.status).toBe(429); // not 400 MALFORMED_JSON: the body was never read
      expect((await wrong()).status).toBe(401);
    });

    it('a 429 does not use up the Idempotency-Key: the retry after the wait runs', async () => {
      t.clock.advance(10_000);
      const fresh = await createApp(t);
      await statuses(10, () => t.http().get('/api/v1/payments').set(asApp(fresh.TEST)));
      const send = () =>
        t
          .http()
          .post('/api/v1/payments')
          .set(asApp(fresh.TEST))
          .set('Idempotency-Key', 'rl-key')
          .send({ amountMinor: 50000, customerReference: 'rl-2' });
      expect((await send()).status).toBe(429);
      t.clock.advance(1000);
      const created = await send();
      expect(created.status).toBe(201);
      expect(created.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  describe('public pages per client address (PUBLIC_RATE_LIMIT_PER_SECOND=2: a burst of 4)', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({ config: { publicRateLimitPerSecond: 2 } });
      t.clock.freeze();
    });
    afterAll(() => t.close());

    const page = (from: string, path = '/pay/no-such-token') =>
      t.http().get(path).set('X-Forwarded-For', from);

    it('the 5th request from one address is 429 (before anything else runs); other addresses are not', async () => {
      expect(await statuses(4, () => page('203.0.113.10'))).toEqual([404, 404, 404, 404]);
      const refused = await page('203.0.113.10');
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body.meta.errorCode).toBe('RATE_LIMITED');
      // Gateway callbacks are public pages too.
      expect(
        (await t.http().post('/api/v1/gateways/sandbox/ipn').set('X-Forwarded-For', '203.0.113.10'))
          .status,
      ).toBe(429);
      expect((await page('203.0.113.11')).status).toBe(404);
      // App calls from the same address are not counted against it.
      expect((await t.http().get('/healthz').set('X-Forwarded-For', '203.0.113.10')).status).toBe(
        200,
      );
    });

    it('a public path spelled differently (case, percent-encoding) is the same page and the same limit', async () => {
      const spellings = ['/PAY/no-such-token', '/%70ay/no-such-token', '/Pay/no-such-token/'];
      // Every spelling reaches the pay page (its 404), so every one is counted.
      for (const path of spellings) expect((await page('203.0.113.20', path)).status).toBe(404);
      expect((await page('203.0.113.20')).status).toBe(404);
      for (const path of spellings) expect((await page('203.0.113.20', path)).status).toBe(429);
    });

    it('IPv6 addresses count by their /64', async () => {
      const sameNet = [
        '2001:db8:7:1::1',
        '2001:db8:7:1::2',
        '2001:db8:7:1:ffff::9',
        '2001:db8:7:1::3',
      ];
      for (const from of sameNet) expect((await page(from)).status).toBe(404);
      expect((await page('2001:db8:7:1::abcd')).status).toBe(429);
      expect((await page('2001:db8:7:2::1')).status).toBe(404);
    });
  });

  it('TRUST_PROXY=false: X-Forwarded-For is ignored, the socket address counts', async () => {
    const t = await createTestApp({ config: { publicRateLimitPerSecond: 1, trustProxy: false } });
    try {
      t.clock.freeze();
      const from = (i: number) =>
        t
          .http()
          .get('/pay/no-such-token')
          .set('X-Forwarded-For', `198.51.100.${i + 1}`);
      expect(await statuses(3, from)).toEqual([404, 404, 429]);
    } finally {
      await t.close();
    }
  });

  it('0 turns the limits off', async () => {
    const t = await createTestApp({
      config: { rateLimitPerSecond: 0, publicRateLimitPerSecond: 0 },
    });
    try {
      t.clock.freeze();
      const app = await createApp(t);
      const calls = await statuses(300, () =>
        t.http().get('/api/v1/payments').set(asApp(app.TEST)),
      );
      expect(calls.every((s) => s === 200)).toBe(true);
      const pages = await statuses(100, () => t.http().get('/pay/no-such-token'));
      expect(pages.every((s) => s === 404)).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('two replicas (RATE_LIMIT_REPLICAS=2) allow the limit between them, not twice it', async () => {
    const config = { rateLimitPerSecond: 10, rateLimitReplicas: 2 };
    const a = await createTestApp({ config });
    const b = await createTestApp({ config, databaseUrl: a.databaseUrl });
    try {
      const app = await createApp(a);
      a.clock.freeze();
      b.clock.freeze();
      const calls = [...Array(30).keys()].map((i) => (i % 2 ? a : b));
      const answered = await statuses(30, (i) =>
        calls[i].http().get('/api/v1/payments').set(asApp(app.TEST)),
      );
      // A burst of 2 x 10 in all: 10 on each replica.
      expect(answered.filter((s) => s === 200)).toHaveLength(20);
      expect(answered.filter((s) => s === 429)).toHaveLength(10);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
