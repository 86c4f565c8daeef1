import { Client } from 'pg';

import { IdempotencyCleanupJob } from '../../src/idempotency/idempotency-cleanup.job';
import { PaymentExpiryJob } from '../../src/payments/payment-expiry.job';
import { RefundRecheckJob } from '../../src/refunds/refund-recheck.job';
import { RetentionJob } from '../../src/retention/retention.job';
import { captureLogs } from '../support/capture-logs';
import { createApp } from '../support/factories';
import { until } from '../support/main-process';
import { createTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 56: on shutdown every scheduled job stops ticking and a tick that
 * is running is waited for before the pool closes under it (IntervalJob),
 * the sweeps that used to keep their own timers (payment expiry, retention,
 * idempotency cleanup) included. A tick is held inside its first query by a
 * lock the test holds while the app closes: the close must wait for it, and
 * the tick must end with its result, not a lost connection.
 */
describe('shutdown waits for a running tick of every scheduled job', () => {
  afterEach(() => jest.restoreAllMocks());

  /** 5,000 expired keys, a whole batch: the cleanup's tick goes on to a second statement. */
  const expiredKeys = async (t: TestApp) => {
    const app = await createApp(t);
    await t.db.query(
      `INSERT INTO idempotency_keys (app_id, mode, key, method, path, request_hash, status_code,
         response_body, state, created_at, expires_at)
       SELECT $1, 'TEST', 'old-' || g, 'POST', '/api/v1/invoices', 'h', 201, '{}', 'FINISHED',
              now() - interval '2 days', now() - interval '1 day'
         FROM generate_series(1, 5000) g`,
      [app.id],
    );
  };

  it.each([
    ['payment expiry', 'payments', null, (app: AppLike) => app.get(PaymentExpiryJob).sweep()],
    [
      'retention',
      'events, webhook_deliveries',
      null,
      (app: AppLike) => app.get(RetentionJob).run(),
    ],
    [
      'idempotency cleanup',
      'idempotency_keys',
      expiredKeys,
      (app: AppLike) => app.get(IdempotencyCleanupJob).run(),
    ],
    // An IntervalJob from the start, for comparison.
    ['refund recheck', 'refunds', null, (app: AppLike) => app.get(RefundRecheckJob).tick()],
  ] as const)(
    '%s (held on %s)',
    async (_name, tables, seed, start) => {
      const t = await createTestApp();
      await seed?.(t);
      const holder = new Client({ connectionString: t.databaseUrl });
      await holder.connect();
      const logged = captureLogs();
      let closing: Promise<unknown> | null = null;
      try {
        await holder.query('BEGIN');
        await holder.query(`LOCK TABLE ${tables} IN ACCESS EXCLUSIVE MODE`);
        const tick = start(t.app).then(
          (result) => ({ result }),
          (err: Error) => ({ error: err.message }),
        );
        // The tick waits for the lock inside its first statement.
        await until(
          async () =>
            (
              await holder.query(
                `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
                  WHERE NOT l.granted AND d.datname = current_database()`,
              )
            ).rows[0].n > 0,
          20_000,
        );
        let closed = false;
        closing = t.close().then(() => (closed = true));
        await new Promise((ok) => setTimeout(ok, 700));
        expect(closed).toBe(false);
        await holder.query('COMMIT');
        const outcome = await tick;
        await closing;
        expect(outcome).not.toHaveProperty('error');
        expect((outcome as { result: unknown }).result).not.toBeNull();
        expect(logged.filter((l) => /fail|terminated|pool/i.test(l))).toEqual([]);
      } finally {
        await holder.end().catch(() => undefined);
        await (closing ?? t.close());
      }
    },
    60_000,
  );
});

type AppLike = { get<T>(type: abstract new (...args: never[]) => T): T };
