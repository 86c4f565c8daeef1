import { TransactionHost } from '@nestjs-cls/transactional';

import { Metrics } from '../../src/common/metrics/metrics';
import type { Tx } from '../../src/database/transaction';
import { WorkerLane } from '../../src/database/worker-lane';
import { createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createEndpoint, eventually, recordEvent, workersOf } from '../support/webhooks';

/**
 * The background workers run on connections of their own (DB_WORKER_POOL_SIZE),
 * so a committed event reaches its endpoint even while API requests hold every
 * pooled connection; with the size 0 they share (and wait for) the API's pool.
 */
describe('webhooks: the workers have connections of their own', () => {
  const receivers: WebhookReceiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });

  /** Takes every connection of the API's pool (size 2) inside open transactions until `release`. */
  async function holdApiPool(t: TestApp): Promise<{ release: () => Promise<void> }> {
    const txHost: Tx = t.app.get(TransactionHost);
    let open!: () => void;
    const gate = new Promise<void>((ok) => (open = ok));
    let started = 0;
    const held = [0, 1].map(() =>
      txHost.withTransaction(async () => {
        await txHost.tx.query('SELECT 1');
        started++;
        await gate;
      }),
    );
    await eventually(async () => started === 2, 5000, 'both API connections taken');
    return {
      release: async () => {
        open();
        await Promise.all(held);
      },
    };
  }

  async function setUp(dbWorkerPoolSize: number) {
    const t = await createTestApp({
      config: {
        dbPoolSize: 2,
        dbWorkerPoolSize,
        // An API-lane wait gives up (and the workers retry on their next wake) after this.
        dbAcquireTimeoutMs: 300,
        webhookPollIntervalMs: 100,
      },
    });
    const app: CreatedApp = await createApp(t);
    const r = await WebhookReceiver.start(() => ({ status: 200 }));
    receivers.push(r);
    await createEndpoint(t, app.TEST, { url: r.url() });
    const eventId = await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'refund.succeeded');
    return { t, r, eventId };
  }

  it('an event is delivered while API requests hold every pooled connection', async () => {
    const { t, r, eventId } = await setUp(2);
    try {
      const hold = await holdApiPool(t);
      try {
        await workersOf(t).start();
        const [got] = await r.waitFor(1, 5000);
        expect(JSON.parse(got.raw.toString('utf8'))).toMatchObject({ type: 'refund.succeeded' });
        const sessions = await t.db.query<{ application_name: string }>(
          `SELECT application_name FROM pg_stat_activity WHERE datname = current_database()`,
        );
        expect(sessions.rows.map((s) => s.application_name)).toContain('joma-workers');
      } finally {
        await hold.release();
      }
      const row = await eventually(
        async () =>
          (
            await t.db.query(
              `SELECT status, attempts FROM webhook_deliveries WHERE event_id = $1 AND status = 'DELIVERED'`,
              [eventId],
            )
          ).rows[0],
        5000,
        'the delivery recorded DELIVERED',
      );
      expect(row.attempts).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('with DB_WORKER_POOL_SIZE=0 the workers share the API pool, and wait for it', async () => {
    const { t, r } = await setUp(0);
    try {
      const hold = await holdApiPool(t);
      await workersOf(t).start();
      await new Promise((ok) => setTimeout(ok, 1000));
      expect(r.received).toHaveLength(0);
      // What an operator sees meanwhile: callers queued for the API's pool
      // (the workers, between their acquire timeouts), and no workers' pool.
      const text = await eventually(
        async () => {
          const m = await t.app.get(Metrics).registry.metrics();
          return /^joma_db_pool_connections\{pool="api",state="waiting"\} [1-9]\d*$/m.test(m) && m;
        },
        3000,
        'a caller waiting for the API pool',
      );
      expect(text).toMatch(/^joma_db_pool_connections\{pool="api",state="total"\} 2$/m);
      expect(text).not.toMatch(/pool="workers"/);
      await hold.release();
      await r.waitFor(1, 5000);
    } finally {
      await t.close();
    }
  });

  it('code run on the lane uses the workers connections, in and out of a transaction; other code the API pool', async () => {
    const t = await createTestApp({ config: { dbWorkerPoolSize: 1 } });
    try {
      const lane = t.app.get(WorkerLane);
      const txHost: Tx = t.app.get(TransactionHost);
      const name = async () =>
        (
          (await txHost.tx.query(`SELECT current_setting('application_name') AS n`)) as {
            n: string;
          }[]
        )[0].n;
      await lane.open();
      expect(await name()).toBe('joma');
      expect(await lane.run(name)).toBe('joma-workers');
      expect(await lane.run(() => txHost.withTransaction(name))).toBe('joma-workers');
      expect(await txHost.withTransaction(name)).toBe('joma');
    } finally {
      await t.close();
    }
  });
});
