import { SandboxGateway } from '../../src/gateways/sandbox';
import type { TestApp } from './test-app';

/** Transactions open on the test's database right now, other than the asking session. */
export async function openTransactions(t: TestApp): Promise<number> {
  const res = await t.db.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND xact_start IS NOT NULL AND pid <> pg_backend_pid()`,
  );
  return res.rows[0].n as number;
}

/**
 * Makes the sandbox gateway hang (the delay switch) until `release()`;
 * `untilCalled(n)` waits until n calls are hanging in it.
 */
export function slowSandbox(t: TestApp) {
  const sandbox = t.app.get(SandboxGateway);
  let release!: () => void;
  sandbox.slowDown(new Promise<void>((r) => (release = r)));
  return {
    sandbox,
    async untilCalled(n = 1) {
      for (let i = 0; i < 500; i++) {
        if (sandbox.callsWaiting >= n) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`the sandbox was not called ${n} times within 5 s`);
    },
    /** Ends the delay for new calls; calls already waiting go on waiting until release(). */
    stopDelaying() {
      sandbox.slowDown(null);
    },
    release() {
      sandbox.slowDown(null);
      release();
    },
  };
}

/** Row-locks a row with NOWAIT from the test's pool: throws if anyone holds it. */
export async function lockNowait(t: TestApp, table: string, id: number): Promise<void> {
  const client = await t.db.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT id FROM ${table} WHERE id = $1 FOR UPDATE NOWAIT`, [id]);
    await client.query('ROLLBACK');
  } finally {
    client.release();
  }
}
