import * as resolver from '../../src/webhooks/security/target-resolver';
import { SilentDnsServer } from '../support/dns-stub';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { verifyV1, WebhookReceiver } from '../support/webhook-receiver';
import {
  createEndpoint,
  deliveryRow,
  eventually,
  recordEvent,
  workersOf,
} from '../support/webhooks';

/**
 * What happens while a webhook host is being resolved: the resolver is
 * replaced by one the test controls (a slow or stuck DNS server), the rest is
 * the real app delivering to a real receiver on 127.0.0.1.
 */
const LOOPBACK: resolver.ResolvedAddress = { address: '127.0.0.1', family: 4 };

/** A resolution the test finishes when it wants to. */
function gatedResolution() {
  let release!: () => void;
  const gate = new Promise<void>((ok) => (release = ok));
  let calls = 0;
  jest.spyOn(resolver, 'resolveTarget').mockImplementation(async () => {
    calls++;
    await gate;
    return LOOPBACK;
  });
  return { release, calls: () => calls };
}

describe('webhooks: delivery while DNS is slow', () => {
  const TIMEOUT_MS = 1500;
  let t: TestApp;
  let app: CreatedApp;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await createTestApp({
      config: { webhookTimeoutMs: TIMEOUT_MS, webhookPollIntervalMs: 100 },
    });
    await workersOf(t).start();
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });
  beforeEach(async () => {
    app = await createApp(t);
  });
  afterEach(() => jest.restoreAllMocks());

  it('spends one deadline on resolving, connecting and answering, not one each', async () => {
    const hanging = await receiver();
    hanging.respondWith(() => 'hang');
    const e = await createEndpoint(t, app.TEST, {
      url: `http://slow-dns.example.test:${hanging.port}/hook`,
    });
    const dns = gatedResolution();
    await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'payment.failed', { payment_id: 1 });
    await eventually(async () => dns.calls() > 0, 5000, 'resolution started');
    // Resolution takes most of the budget; the request gets only what is left.
    setTimeout(dns.release, 1200).unref();
    await hanging.waitFor(1);
    const [attempt] = await eventually(
      async () => {
        const q = await t.db.query(
          'SELECT duration_ms, error FROM webhook_delivery_attempts WHERE endpoint_id = $1',
          [e.id],
        );
        return q.rows.length ? q.rows : null;
      },
      10_000,
      'attempt recorded',
    );
    expect(attempt.error).toMatch(/^TIMEOUT/);
    expect(attempt.duration_ms).toBeLessThan(TIMEOUT_MS + 600);
  });

  it('signs with the secret current when the request is signed, even if rotated while the host was resolving', async () => {
    const r = await receiver();
    const e = await createEndpoint(t, app.TEST, { url: r.url() });
    const dns = gatedResolution();
    await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'refund.succeeded', { refund_id: 1 });
    await eventually(async () => dns.calls() > 0, 5000, 'delivery claimed, host resolving');

    const rotated = await t
      .http()
      .post(`/api/v1/webhook-endpoints/${e.id}/rotate-secret`)
      .set(asApp(app.TEST));
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;
    dns.release();

    const [got] = await r.waitFor(1);
    expect(verifyV1(fresh, got.raw, got.headers['x-webhook-signature'])).toBe(true);
    expect(verifyV1(e.secret, got.raw, got.headers['x-webhook-signature'])).toBe(false);
    await eventually(
      async () => (await deliveryRow(t, got.id)).status === 'DELIVERED',
      5000,
      'DELIVERED',
    );
  });
});

describe('webhooks: saving a URL while DNS is stuck (SSRF guard on)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      config: { webhookAllowPrivateTargets: false, webhookTimeoutMs: 1000 },
    });
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  it('answers 400 WEBHOOK_URL_NOT_ALLOWED within the deadline instead of holding the request (and its transaction)', async () => {
    const app = await createApp(t);
    jest.spyOn(resolver, 'resolveTarget').mockImplementation(() => new Promise(() => undefined));
    for (const idempotencyKey of [undefined, 'stuck-dns-1']) {
      const req = t.http().post('/api/v1/webhook-endpoints').set(asApp(app.LIVE)).timeout(5000);
      if (idempotencyKey) req.set('Idempotency-Key', idempotencyKey);
      const res = await req.send({ url: 'https://tarpit.example.com/hook', events: ['*'] });
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('WEBHOOK_URL_NOT_ALLOWED');
      expect(res.body.meta.details).toEqual([{ field: 'url', message: 'host does not resolve' }]);
    }
    const n = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE app_id = $1',
      [app.id],
    );
    expect(n.rows[0].n).toBe(0);
  });
  it('holds no database connection while a DNS server never answers (twelve stuck creates leave the pool free)', async () => {
    const dns = await SilentDnsServer.start();
    const stuck = await createTestApp({
      config: {
        webhookAllowPrivateTargets: false,
        webhookTimeoutMs: 5000,
        webhookDnsServers: [dns.server],
      },
    });
    try {
      const app = await createApp(stuck);
      const creates = Array.from({ length: 12 }, (_, i) =>
        stuck
          .http()
          .post('/api/v1/webhook-endpoints')
          .set(asApp(app.LIVE))
          .set('Idempotency-Key', `stuck-pool-${i}`)
          .send({ url: 'https://tarpit.example.test/hook', events: ['*'] })
          .then((r) => r),
      );
      while (dns.queries.length < 1) await new Promise((r) => setTimeout(r, 20));
      // Every create waits on the silent DNS server: none holds a transaction...
      const open = await stuck.db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
      );
      expect(open.rows[0].n).toBe(0);
      // ...other tenants' requests still get connections...
      const other = await createApp(stuck);
      expect((await stuck.http().get('/api/v1/invoices').set(asApp(other.TEST))).status).toBe(200);
      // ...and the c-ares timeout (2 s) answers them all, sharing one lookup (A + AAAA).
      const answers = await Promise.all(creates);
      expect(answers.map((r) => r.status)).toEqual(Array(12).fill(400));
      expect(answers[0].body.meta.details).toEqual([
        { field: 'url', message: 'host does not resolve' },
      ]);
      expect(dns.queries.length).toBeLessThanOrEqual(2);
    } finally {
      await stuck.close();
      await dns.close();
    }
  });
});

describe('webhooks: an endpoint whose host never answers DNS', () => {
  let t: TestApp;
  let dns: SilentDnsServer;
  beforeAll(async () => {
    dns = await SilentDnsServer.start();
    t = await createTestApp({
      config: {
        webhookTimeoutMs: 1000,
        webhookPollIntervalMs: 100,
        webhookDnsServers: [dns.server],
      },
    });
    await workersOf(t).start();
  });
  afterAll(async () => {
    await t.close();
    await dns.close();
  });

  it('holds one c-ares lookup for it at a time, not one per attempt (no libuv thread at all)', async () => {
    const app = await createApp(t);
    const e = await createEndpoint(t, app.TEST, { url: 'http://tarpit.example.test:9/hook' });
    for (let i = 0; i < 6; i++)
      await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'payment.failed', { payment_id: i });
    // The per-endpoint cap lets 4 attempts run at once; each gives up at its deadline (1 s),
    // before the lookup they share times out (2 s).
    const attempts = await eventually(
      async () => {
        const q = await t.db.query(
          'SELECT error FROM webhook_delivery_attempts WHERE endpoint_id = $1',
          [e.id],
        );
        return q.rows.length >= 4 ? q.rows : null;
      },
      10_000,
      'four attempts given up',
    );
    for (const a of attempts) expect(a.error).toMatch(/^DNS_FAILED/);
    // One shared lookup: one A and one AAAA query reached the DNS server.
    expect(dns.queries.length).toBeLessThanOrEqual(2);
    expect(dns.queries.length).toBeGreaterThanOrEqual(1);
  });
});
