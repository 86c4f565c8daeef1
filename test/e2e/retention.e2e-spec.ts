import { RetentionJob } from '../../src/retention/retention.job';
import { WebhookFanout } from '../../src/webhooks/delivery/webhook-fanout';
import { createApp } from '../support/factories';
import { createInvoice } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Storage that grows without bound is pruned: TEST events and deliveries
 * after 30 days, LIVE after 90, ended sessions and stale login counters;
 * money records and the audit log are never touched. UNDELIVERABLE
 * deliveries keep no body copy.
 */
describe('retention', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const age = (table: string, days: number, where: string, params: unknown[]) =>
    t.db.query(
      `UPDATE ${table} SET created_at = now() - interval '${days} days' WHERE ${where}`,
      params,
    );

  it('deletes old TEST events (and their deliveries), keeps LIVE ones within 90 days, never money or audit rows', async () => {
    const app = await createApp(t);
    const test = await createInvoice(t, app.TEST, { customerReference: 'ret-test' });
    const live = await createInvoice(t, app.LIVE, { customerReference: 'ret-live' });
    const fresh = await createInvoice(t, app.TEST, { customerReference: 'ret-fresh' });
    await t.app.get(WebhookFanout).fanOutBatch();
    const deliveries = await t.db.query(
      `SELECT d.status, d.body FROM webhook_deliveries d WHERE d.app_id = $1`,
      [app.id],
    );
    expect(deliveries.rows.length).toBe(3);
    for (const d of deliveries.rows) expect(d).toEqual({ status: 'UNDELIVERABLE', body: '' });

    const eventOf = async (invoiceId: number) =>
      (
        await t.db.query(`SELECT id FROM events WHERE (data->>'invoice_id')::bigint = $1`, [
          invoiceId,
        ])
      ).rows[0]?.id as number | undefined;
    const [te, le] = [await eventOf(test.id), await eventOf(live.id)];
    for (const [id, days] of [
      [te, 31],
      [le, 40],
    ] as const) {
      await age('events', days, 'id = $1', [id]);
      await age('webhook_deliveries', days, 'event_id = $1', [id]);
    }
    const auditBefore = (await t.db.query('SELECT count(*)::int AS n FROM audit_events')).rows[0].n;

    const result = await t.app.get(RetentionJob).run();
    expect(result.events).toBeGreaterThanOrEqual(2); // the TEST event and its delivery

    expect(await eventOf(test.id)).toBeUndefined();
    expect(await eventOf(live.id)).toBe(le);
    expect(await eventOf(fresh.id)).toBeDefined();
    const invoices = await t.db.query('SELECT count(*)::int AS n FROM invoices WHERE app_id = $1', [
      app.id,
    ]);
    expect(invoices.rows[0].n).toBe(3);
    expect((await t.db.query('SELECT count(*)::int AS n FROM audit_events')).rows[0].n).toBe(
      auditBefore,
    );

    // LIVE past 90 days goes too.
    await age('events', 91, 'id = $1', [le]);
    await age('webhook_deliveries', 91, 'event_id = $1', [le]);
    await t.app.get(RetentionJob).run();
    expect(await eventOf(live.id)).toBeUndefined();
  });

  it('purges ended sessions and stale login counters', async () => {
    await t.db.query(
      `INSERT INTO login_throttles (key, window_start, last_at, failures)
       VALUES ('email:stale', now() - interval '2 hours', now() - interval '2 hours', 3)`,
    );
    const result = await t.app.get(RetentionJob).run();
    expect(result.loginCounters).toBeGreaterThanOrEqual(1);
    const left = await t.db.query(
      `SELECT count(*)::int AS n FROM login_throttles WHERE key = 'email:stale'`,
    );
    expect(left.rows[0].n).toBe(0);
  });
});
