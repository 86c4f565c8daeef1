import { createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import {
  createEndpoint,
  deliveryRow,
  dispatcherOf,
  eventually,
  recordEvent,
  workersOf,
} from '../support/webhooks';

const FAST = { webhookTimeoutMs: 5000, webhookPollIntervalMs: 100 };

/** Replicas share their configuration's secrets, as real ones do. */
function replicaOf(first: TestApp, config: Record<string, unknown> = {}): Promise<TestApp> {
  return createTestApp({
    databaseUrl: first.databaseUrl,
    config: {
      ...FAST,
      jwtSecret: first.config.jwtSecret,
      encryptionKeyHex: first.config.encryptionKey.toString('hex'),
      ...config,
    },
  });
}

describe('webhooks: several dispatchers on one database', () => {
  let a: TestApp;
  let b: TestApp;
  let app: CreatedApp;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    a = await createTestApp({ config: FAST });
    b = await replicaOf(a);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    for (const r of receivers) await r.close();
  });
  beforeEach(async () => {
    app = await createApp(a);
  });
  afterEach(async () => {
    await workersOf(a).stop();
    await workersOf(b).stop();
  });

  it('delivers each delivery exactly once with two replicas running (fault-free)', async () => {
    const [r1, r2] = [await receiver(), await receiver()];
    await createEndpoint(a, app.TEST, { url: r1.url() });
    await createEndpoint(a, app.TEST, { url: r2.url() });
    await workersOf(a).start();
    await workersOf(b).start();
    const n = 60;
    // Events recorded through both replicas, interleaved.
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        recordEvent(i % 2 ? a : b, { appId: app.id, mode: 'TEST' }, 'payment.succeeded', {
          payment_id: i,
        }),
      ),
    );
    await r1.waitFor(n, 20_000);
    await r2.waitFor(n, 20_000);
    await eventually(
      async () => {
        const q = await a.db.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE app_id = $1 AND status = 'DELIVERED'`,
          [app.id],
        );
        return q.rows[0].n === 2 * n;
      },
      10_000,
      'all DELIVERED',
    );
    for (const r of [r1, r2]) {
      expect(r.received).toHaveLength(n);
      expect(new Set(r.ids()).size).toBe(n);
    }
    const attempts = await a.db.query(
      `SELECT count(*)::int AS n, count(DISTINCT delivery_id)::int AS d, count(DISTINCT worker)::int AS w
         FROM webhook_delivery_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE app_id = $1)`,
      [app.id],
    );
    expect(attempts.rows[0]).toMatchObject({ n: 2 * n, d: 2 * n });
    const fanned = await a.db.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE app_id = $1`,
      [app.id],
    );
    expect(fanned.rows[0].n).toBe(2 * n);
  });

  it('a dispatcher killed mid-flight leaves its claim to another replica after the lease: at-least-once, nothing lost', async () => {
    const r = await receiver();
    r.respondWith((_, i) => (i === 0 ? 'hang' : 200));
    await createEndpoint(a, app.TEST, { url: r.url() });
    await workersOf(a).start();
    await recordEvent(a, { appId: app.id, mode: 'TEST' }, 'invoice.paid', { invoice_id: 1 });
    const [first] = await r.waitFor(1);
    const claimed = await deliveryRow(a, first.id);
    expect(claimed.locked_by).toBe(dispatcherOf(a).workerId);

    await workersOf(a).crash();
    expect(await deliveryRow(a, first.id)).toMatchObject({
      status: 'PENDING',
      attempts: 0,
      locked_by: dispatcherOf(a).workerId,
    });

    // Replica B does not touch it while the lease holds ...
    const other = dispatcherOf(b);
    other.start();
    await other.pump();
    expect(other.inFlightCount).toBe(0);
    expect(r.received).toHaveLength(1);

    // ... and takes it over once the lease has run out.
    b.clock.advance(other.leaseMs + 1000);
    await other.pump();
    const [, second] = await r.waitFor(2);
    expect(second.id).toBe(first.id);
    expect(second.raw.equals(first.raw)).toBe(true);
    const done = await eventually(
      async () => {
        const d = await deliveryRow(a, first.id);
        return d.status === 'DELIVERED' ? d : null;
      },
      5000,
      'DELIVERED by replica B',
    );
    expect(done).toMatchObject({ attempts: 1, locked_by: null });
    const log = await a.db.query(
      'SELECT worker FROM webhook_delivery_attempts WHERE delivery_id = $1',
      [first.id],
    );
    expect(log.rows).toEqual([{ worker: other.workerId }]);
    await other.stop();
  });

  it('a stopped (not crashed) replica hands its in-flight claims back at once', async () => {
    const r = await receiver();
    r.respondWith((_, i) => (i === 0 ? 'hang' : 200));
    await createEndpoint(a, app.TEST, { url: r.url() });
    await workersOf(a).start();
    await recordEvent(a, { appId: app.id, mode: 'TEST' }, 'invoice.issued', { invoice_id: 2 });
    const [first] = await r.waitFor(1);
    await workersOf(a).stop();
    expect(await deliveryRow(a, first.id)).toMatchObject({
      status: 'PENDING',
      locked_by: null,
      locked_until: null,
    });
    await workersOf(b).start();
    const [, second] = await r.waitFor(2);
    expect(second.id).toBe(first.id);
  });
});

/**
 * Claims handed back by a stopping replica are taken by a running one at
 * once: the hand-back NOTIFYs, so nobody waits for the poll (10 min here).
 */
describe('webhooks: a hand-back wakes the other replicas', () => {
  const SLOW_POLL = { ...FAST, webhookPollIntervalMs: 600_000 };
  let a: TestApp;
  let b: TestApp;
  let r: WebhookReceiver;

  beforeAll(async () => {
    a = await createTestApp({ config: SLOW_POLL });
    b = await replicaOf(a, SLOW_POLL);
    r = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    await r.close();
  });

  it('a running replica sends what a stopping one handed back, without waiting for its poll', async () => {
    const app = await createApp(a);
    r.respondWith((_, i) => (i === 0 ? 'hang' : 200));
    await createEndpoint(a, app.TEST, { url: r.url() });
    await workersOf(a).start();
    await recordEvent(a, { appId: app.id, mode: 'TEST' }, 'invoice.issued', { invoice_id: 3 });
    const [first] = await r.waitFor(1);
    await workersOf(b).start();
    await workersOf(a).stop();
    const [, second] = await r.waitFor(2, 5000);
    expect(second.id).toBe(first.id);
    await eventually(
      async () =>
        (await deliveryRow(a, first.id)).status === 'DELIVERED' &&
        (
          await a.db.query('SELECT worker FROM webhook_delivery_attempts WHERE delivery_id = $1', [
            first.id,
          ])
        ).rows.every((x) => x.worker === dispatcherOf(b).workerId),
      5000,
      'delivered by the running replica',
    );
    await workersOf(b).stop();
  });
});

describe('webhooks: SSRF guard at delivery', () => {
  let open: TestApp;
  let guarded: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    open = await createTestApp({ config: FAST });
    guarded = await replicaOf(open, { webhookAllowPrivateTargets: false });
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await guarded.close();
    await open.close();
    await receiver.close();
  });

  it('refuses a loopback target after resolution and sends nothing', async () => {
    const app = await createApp(open);
    // Saved where private targets are allowed, delivered by a replica where they are not.
    await createEndpoint(open, app.TEST, { url: receiver.url().replace('127.0.0.1', 'localhost') });
    await workersOf(guarded).start();
    const eventId = await recordEvent(open, { appId: app.id, mode: 'TEST' }, 'payment.succeeded', {
      payment_id: 1,
    });
    const row = await eventually(
      async () => {
        const q = await open.db.query(
          'SELECT * FROM webhook_deliveries WHERE event_id = $1 AND attempts = 1 AND locked_by IS NULL',
          [eventId],
        );
        return q.rows[0];
      },
      5000,
      'first attempt',
    );
    expect(row.status).toBe('RETRYING');
    expect(row.last_error).toMatch(/^TARGET_NOT_ALLOWED: localhost resolves to a private address$/);
    expect(receiver.received).toHaveLength(0);
    await workersOf(guarded).stop();
  });
});
