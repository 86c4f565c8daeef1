import { TransactionHost } from '@nestjs-cls/transactional';

import {
  PER_ENDPOINT_MAX,
  PER_ENDPOINT_START,
} from '../../src/webhooks/delivery/webhook-dispatcher';
import { createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { verifyV1, WebhookReceiver } from '../support/webhook-receiver';
import {
  createEndpoint,
  dispatcherOf,
  eventually,
  recordSyntheticEvent,
  workersOf,
} from '../support/webhooks';

/**
 * How the dispatcher keeps up with a healthy endpoint without letting a bad
 * one take more: kept-alive connections, a per-endpoint cap that grows on
 * quick 2xx answers and halves on failures, attempts written in batches.
 */
describe('webhooks: throughput to a healthy endpoint, restraint with a failing one', () => {
  let t: TestApp;
  let app: CreatedApp;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await createTestApp({ config: { webhookTimeoutMs: 4000, webhookPollIntervalMs: 100 } });
    await workersOf(t).start();
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });
  beforeEach(async () => {
    app = await createApp(t);
  });

  /** `n` events in one transaction: a burst for every endpoint of the app. */
  async function burst(n: number): Promise<number[]> {
    const txHost = t.app.get(TransactionHost);
    return txHost.withTransaction(async () => {
      const ids: number[] = [];
      for (let i = 0; i < n; i++)
        ids.push(
          await recordSyntheticEvent(t, { appId: app.id, mode: 'TEST' }, 'refund.succeeded', {
            n: i,
          }),
        );
      return ids;
    });
  }

  it('a healthy endpoint gets more than the starting parallelism, over reused connections, every attempt recorded and signed', async () => {
    const r = await WebhookReceiver.start(() => ({ status: 200, delayMs: 30 }));
    receivers.push(r);
    const e = await createEndpoint(t, app.TEST, { url: r.url() });
    await burst(150);
    const got = await r.waitFor(150, 20_000);

    expect(r.maxConcurrent).toBeGreaterThan(PER_ENDPOINT_START);
    expect(r.maxConcurrent).toBeLessThanOrEqual(PER_ENDPOINT_MAX);
    expect(r.connections).toBeLessThan(got.length / 2);
    expect(dispatcherOf(t).capOf(e.id)).toBeGreaterThan(PER_ENDPOINT_START);
    for (const w of got)
      expect(verifyV1(e.secret, w.raw, w.headers['x-webhook-signature'])).toBe(true);
    expect(new Set(got.map((w) => w.id)).size).toBe(150);

    const rows = await eventually(
      async () => {
        const res = await t.db.query(
          `SELECT d.status, count(a.id)::int AS attempts FROM webhook_deliveries d
           JOIN webhook_delivery_attempts a ON a.delivery_id = d.id
          WHERE d.endpoint_id = $1 GROUP BY d.id, d.status`,
          [e.id],
        );
        return res.rows.length === 150 && res.rows.every((x) => x.status === 'DELIVERED')
          ? res.rows
          : null;
      },
      10_000,
      'every delivery DELIVERED with its attempt',
    );
    expect(rows.every((x) => x.attempts === 1)).toBe(true);
  });

  it('a failing endpoint falls to one request at a time while its healthy sibling is not held back', async () => {
    const bad = await WebhookReceiver.start(() => 500);
    const good = await WebhookReceiver.start(() => 200);
    receivers.push(bad, good);
    const eb = await createEndpoint(t, app.TEST, { url: bad.url() });
    await createEndpoint(t, app.TEST, { url: good.url() });
    await burst(40);

    await good.waitFor(40, 10_000);
    await bad.waitFor(40, 10_000);
    expect(bad.maxConcurrent).toBeLessThanOrEqual(PER_ENDPOINT_START);
    expect(dispatcherOf(t).capOf(eb.id)).toBe(1);
    // Every first attempt is recorded as a failure, to be retried later.
    await eventually(
      async () =>
        (
          await t.db.query(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'RETRYING' AND attempts = 1`,
            [eb.id],
          )
        ).rows[0].n === 40,
      5000,
      'forty RETRYING deliveries after one attempt each',
    );
  });
});

/**
 * A finished attempt claims again only when the latest claim was held back by
 * a cap. With the poll fallback out of reach (10 min), a burst far above the
 * starting cap still drains: every slot freed at the cap is refilled at once.
 */
describe('webhooks: a burst above the cap drains without the poll', () => {
  let t: TestApp;
  let r: WebhookReceiver;

  beforeAll(async () => {
    t = await createTestApp({ config: { webhookPollIntervalMs: 600_000 } });
    await workersOf(t).start();
  });
  afterAll(async () => {
    await t.close();
    await r?.close();
  });

  it('120 events to one endpoint starting at 4 in flight are all delivered, each once', async () => {
    const app = await createApp(t);
    r = await WebhookReceiver.start(() => ({ status: 200, delayMs: 5 }));
    await createEndpoint(t, app.TEST, { url: r.url() });
    await t.app.get(TransactionHost).withTransaction(async () => {
      for (let i = 0; i < 120; i++)
        await recordSyntheticEvent(t, { appId: app.id, mode: 'TEST' }, 'refund.succeeded', {
          n: i,
        });
    });
    const got = await r.waitFor(120, 15_000);
    expect(new Set(got.map((w) => w.id)).size).toBe(120);
    expect(r.maxConcurrent).toBeGreaterThan(PER_ENDPOINT_START);
  });
});
