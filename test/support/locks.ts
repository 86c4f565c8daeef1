import type { PoolClient } from 'pg';

import type { TestApp } from './test-app';

/** Sessions of the test's database currently waiting for a row lock. */
export async function lockWaiters(t: TestApp): Promise<number> {
  const res = await t.db.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return res.rows[0].n as number;
}

/**
 * Waits (bounded) until at least `n` sessions wait for a lock, or until
 * `settled` (if given) has settled: a request that does not block finishing
 * is also an answer.
 */
export async function untilWaiting(t: TestApp, n: number, settled?: Promise<unknown>) {
  let done = false;
  void settled?.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 500; i++) {
    if (done || (await lockWaiters(t)) >= n) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${n} lock waiters after 10 s`);
}

/** Holds row locks in a transaction of its own until `release()`. */
export async function holdLock(
  t: TestApp,
  sql: string,
  params: unknown[],
): Promise<{ release: () => Promise<void> }> {
  const client: PoolClient = await t.db.connect();
  await client.query('BEGIN');
  try {
    const res = await client.query(sql, params);
    if (!res.rowCount) throw new Error(`holdLock: no row locked by ${sql}`);
  } catch (err) {
    await client.query('ROLLBACK');
    client.release();
    throw err;
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await client.query('COMMIT');
      client.release();
    },
  };
}
