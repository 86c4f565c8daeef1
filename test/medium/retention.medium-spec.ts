import { InvoicesService } from '../../src/invoices';
import { RetentionJob } from '../../src/retention/retention.job';
import { WebhookFanout } from '../../src/webhooks/delivery/webhook-fanout';
import { serviceFixture } from '../support/service-fixture';

/**
 * Retention as the job on a real database, no HTTP in between (formerly
 * test/e2e/retention.e2e-spec.ts; the job has no route): storage that grows
 * without bound is pruned, TEST events and their deliveries after 30 days,
 * LIVE after 90, ended admin sessions and stale login counters; money
 * records and the audit log are never touched. UNDELIVERABLE deliveries
 * keep no body copy.
 */
describe('retention (medium tier: the job on a real database)', () => {
  const f = serviceFixture({ appName: 'Retention' });
  const run = () => f.get(RetentionJob).run();

  const age = (table: string, days: number, where: string, params: unknown[]) =>
    f.c.db.query(
      `UPDATE ${table} SET created_at = now() - interval '${days} days' WHERE ${where}`,
      params,
    );
  const count = async (sql: string, params: unknown[] = []) =>
    (await f.c.db.query(sql, params)).rows[0].n as number;

  it('deletes old TEST events (and their deliveries), keeps LIVE ones within 90 days, never money or audit rows', async () => {
    const invoices = f.get(InvoicesService);
    const invoice = async (mode: 'TEST' | 'LIVE', customerReference: string) =>
      (
        await invoices.create(
          { appId: f.scope.appId, mode },
          {
            customerReference,
            currency: 'BDT',
            lineItems: [{ description: 'Item', qty: 1, unitAmountMinor: 100000 }],
          },
        )
      ).invoice;
    const test = await invoice('TEST', 'ret-test');
    const live = await invoice('LIVE', 'ret-live');
    const fresh = await invoice('TEST', 'ret-fresh');
    await f.get(WebhookFanout).fanOutBatch();
    const deliveries = await f.c.db.query(
      `SELECT d.status, d.body FROM webhook_deliveries d WHERE d.app_id = $1`,
      [f.scope.appId],
    );
    expect(deliveries.rows.length).toBe(3);
    for (const d of deliveries.rows) expect(d).toEqual({ status: 'UNDELIVERABLE', body: '' });

    const eventOf = async (invoiceId: number) =>
      (
        await f.c.db.query(`SELECT id FROM events WHERE (data->>'invoice_id')::bigint = $1`, [
          invoiceId,
        ])
      ).rows[0]?.id as number | undefined;
    const [te, le] = [await eventOf(test.id), await eventOf(live.id)];
    expect(te).toBeDefined();
    expect(le).toBeDefined();
    for (const [id, days] of [
      [te, 31],
      [le, 40],
    ] as const) {
      await age('events', days, 'id = $1', [id]);
      await age('webhook_deliveries', days, 'event_id = $1', [id]);
    }
    const auditBefore = await count('SELECT count(*)::int AS n FROM audit_events');

    const result = await run();
    expect(result.events).toBe(2); // the TEST event and its delivery

    expect(await eventOf(test.id)).toBeUndefined();
    expect(await eventOf(live.id)).toBe(le);
    expect(await eventOf(fresh.id)).toBeDefined();
    expect(
      await count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE app_id = $1', [
        f.scope.appId,
      ]),
    ).toBe(2);
    expect(
      await count('SELECT count(*)::int AS n FROM invoices WHERE app_id = $1', [f.scope.appId]),
    ).toBe(3);
    expect(await count('SELECT count(*)::int AS n FROM audit_events')).toBe(auditBefore);

    // LIVE past 90 days goes too.
    await age('events', 91, 'id = $1', [le]);
    await age('webhook_deliveries', 91, 'event_id = $1', [le]);
    expect((await run()).events).toBe(2);
    expect(await eventOf(live.id)).toBeUndefined();
    expect(await eventOf(fresh.id)).toBeDefined();
    expect(
      await count('SELECT count(*)::int AS n FROM invoices WHERE app_id = $1', [f.scope.appId]),
    ).toBe(3);
  });

  it('purges ended sessions and stale login counters', async () => {
    await f.c.db.query(
      `INSERT INTO login_throttles (key, window_start, last_at, failures)
       VALUES ('email:stale', now() - interval '2 hours', now() - interval '2 hours', 3),
              ('email:fresh', now(), now(), 1)`,
    );
    const { rows } = await f.c.db.query(
      `INSERT INTO admin_users (email, name, password_hash)
       VALUES ('retention@joma.test', 'Retention', 'x') RETURNING id`,
    );
    const userId = rows[0].id;
    await f.c.db.query(
      `INSERT INTO admin_sessions (user_id, token_id, expires_at, revoked_at) VALUES
         ($1, 'expired', now() - interval '2 days', NULL),
         ($1, 'revoked', now() + interval '1 hour', now() - interval '2 days'),
         ($1, 'open', now() + interval '1 hour', NULL),
         ($1, 'just-ended', now() - interval '1 hour', NULL)`,
      [userId],
    );
    const result = await run();
    expect(result.loginCounters).toBeGreaterThanOrEqual(1);
    expect(result.sessions).toBe(2);
    const keys = await f.c.db.query(
      `SELECT key FROM login_throttles WHERE key LIKE 'email:%' ORDER BY key`,
    );
    expect(keys.rows.map((r) => r.key)).toEqual(['email:fresh']);
    const sessions = await f.c.db.query(
      `SELECT token_id FROM admin_sessions WHERE user_id = $1 ORDER BY token_id`,
      [userId],
    );
    // Ended a day ago or more: gone; open, or ended within the day: kept.
    expect(sessions.rows.map((r) => r.token_id)).toEqual(['just-ended', 'open']);
  });
});
