import fc from 'fast-check';
import { Pool } from 'pg';

import { createTestContext, insertApp, TestContext } from '../support/test-context';

/**
 * The list totals of payments, events and webhook deliveries come from
 * sharded counters (`list_counts`) kept by triggers in the writing
 * transaction. Whatever mix of inserts, deletes and rolled-back writes
 * runs, one at a time or from several connections at once, the counters
 * sum to exactly `count(*)` of every partition.
 */
describe('list counters always equal count(*) (medium tier)', () => {
  let c: TestContext;
  let pools: Pool[];
  const apps: number[] = [];
  const customers = new Map<string, number>();
  let seq = 0;

  beforeAll(async () => {
    c = await createTestContext();
    for (const name of ['Counted A', 'Counted B']) apps.push(await insertApp(c.db, name));
    for (const appId of apps)
      for (const mode of ['TEST', 'LIVE']) {
        const { rows } = await c.db.query(
          `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, $2, 'counted') RETURNING id`,
          [appId, mode],
        );
        customers.set(`${appId}:${mode}`, Number(rows[0].id));
      }
    // Distinct sessions (distinct backend pids): writes land on different shards.
    pools = [1, 2, 3, 4].map(() => new Pool({ connectionString: c.url, max: 1 }));
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await c.close();
  });

  type Op =
    | {
        kind: 'payments' | 'events';
        app: number;
        mode: 'TEST' | 'LIVE';
        n: number;
        rollback: boolean;
      }
    | { kind: 'deleteEvents'; app: number; mode: 'TEST' | 'LIVE'; n: number; rollback: boolean };

  const op: fc.Arbitrary<Op> = fc.record({
    kind: fc.constantFrom('payments' as const, 'events' as const, 'deleteEvents' as const),
    app: fc.nat({ max: 1 }),
    mode: fc.constantFrom('TEST' as const, 'LIVE' as const),
    n: fc.integer({ min: 1, max: 5 }),
    rollback: fc.boolean(),
  });

  async function run(pool: Pool, o: Op): Promise<void> {
    const appId = apps[o.app];
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      if (o.kind === 'payments') {
        const cust = customers.get(`${appId}:${o.mode}`);
        for (let i = 0; i < o.n; i++)
          await client.query(
            `INSERT INTO payments (app_id, mode, reference, status, amount_minor, gateway, customer_id, expires_at)
             VALUES ($1, $2, $3, 'PENDING', 1000, 'sandbox', $4, now())`,
            [appId, o.mode, `pay_counted_${++seq}_${'z'.repeat(12)}`, cust],
          );
      } else if (o.kind === 'events') {
        // One statement, several rows: the trigger counts a statement's rows at once.
        await client.query(
          `INSERT INTO events (app_id, mode, type, data, created_at)
           SELECT $1, $2, 'counted.test', '{}'::jsonb, now() FROM generate_series(1, $3)`,
          [appId, o.mode, o.n],
        );
      } else {
        await client.query(
          `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE app_id = $1 AND mode = $2
             AND id NOT IN (SELECT event_id FROM webhook_deliveries) ORDER BY id LIMIT $3)`,
          [appId, o.mode, o.n],
        );
      }
      await client.query(o.rollback ? 'ROLLBACK' : 'COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      // Two lanes deleting the same app's oldest events can lock them in
      // different orders; PostgreSQL then aborts one of them (40P01), which
      // is one more rolled-back write the counters must survive.
      if ((err as { code?: string }).code === '40P01') return;
      throw err;
    } finally {
      client.release();
    }
  }

  async function mismatches(): Promise<unknown[]> {
    const { rows } = await c.db.query(`
      WITH actual AS (
        SELECT 'payments' AS t, app_id, mode, count(*) AS n FROM payments GROUP BY app_id, mode
        UNION ALL SELECT 'events', app_id, mode, count(*) FROM events GROUP BY app_id, mode
        UNION ALL SELECT 'webhook_deliveries', app_id, mode, count(*) FROM webhook_deliveries GROUP BY app_id, mode),
      counted AS (SELECT table_name AS t, app_id, mode, sum(n) AS n FROM list_counts GROUP BY 1, 2, 3)
      SELECT * FROM actual FULL JOIN counted USING (t, app_id, mode)
       WHERE coalesce(actual.n, 0) <> coalesce(counted.n, 0)`);
    return rows;
  }

  it('after random writes, one connection at a time', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        for (const o of ops) await run(pools[0], o);
        expect(await mismatches()).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  it('after random writes from four connections at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { minLength: 1, maxLength: 8 }), { minLength: 4, maxLength: 4 }),
        async (lanes) => {
          await Promise.all(
            lanes.map((ops, i) =>
              ops.reduce((prev, o) => prev.then(() => run(pools[i], o)), Promise.resolve()),
            ),
          );
          expect(await mismatches()).toEqual([]);
        },
      ),
      { numRuns: 15 },
    );
    // The writes really spread over shards (distinct sessions).
    const { rows } = await c.db.query(
      `SELECT count(DISTINCT shard)::int AS shards FROM list_counts WHERE table_name = 'events'`,
    );
    expect(rows[0].shards).toBeGreaterThan(1);
  });
});
