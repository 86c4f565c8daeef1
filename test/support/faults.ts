import type { Pool } from 'pg';

/**
 * Real faults from PostgreSQL itself: while `call` runs, a trigger refuses
 * any change of `column` on rows of `table` (the write of a step after the
 * first commit of a multi-step operation), so the request fails there as it
 * would if the connection or the process had died between the steps.
 */
export async function withWriteRefused<T>(
  db: Pool,
  table: string,
  column: string,
  call: () => PromiseLike<T>,
): Promise<T> {
  await db.query(`
    CREATE OR REPLACE FUNCTION joma_test_injected_fault() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'injected fault'; END $$`);
  const name = `fault_${table}_${column}`;
  await db.query(
    `CREATE TRIGGER ${name} BEFORE UPDATE OF ${column} ON ${table} FOR EACH ROW
     WHEN (NEW.${column} IS DISTINCT FROM OLD.${column}) EXECUTE FUNCTION joma_test_injected_fault()`,
  );
  try {
    return await call();
  } finally {
    await db.query(`DROP TRIGGER ${name} ON ${table}`);
  }
}

/** The advisory lock `withWriteHeld` holds while a request waits at its step. */
const HELD_LOCK = 4_343_001;

/**
 * A request stopped exactly between the steps of a multi-step operation:
 * while `call` runs, a change of `column` on rows of `table` waits for an
 * advisory lock this helper holds, so the first step has committed and the
 * next one is open and waiting. `call` gets `stopped()`, which resolves with
 * a waiting backend's pid once `count` (default 1) wait there (the moment to kill the
 * process making the request), or with null once `unless` settles first
 * (the request ended without reaching that step). Afterwards the lock is let go and the
 * trigger dropped (which waits for that backend's transaction to end).
 */
export async function withWriteHeld<T>(
  db: Pool,
  table: string,
  column: string,
  call: (
    stopped: (unless?: Promise<unknown>, count?: number) => Promise<number | null>,
  ) => PromiseLike<T>,
): Promise<T> {
  const holder = await db.connect();
  const name = `held_${table}_${column}`;
  try {
    await holder.query('SELECT pg_advisory_lock($1)', [HELD_LOCK]);
    await db.query(`
      CREATE OR REPLACE FUNCTION joma_test_held_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(${HELD_LOCK}); RETURN NEW; END $$`);
    await db.query(
      `CREATE TRIGGER ${name} BEFORE UPDATE OF ${column} ON ${table} FOR EACH ROW
       WHEN (NEW.${column} IS DISTINCT FROM OLD.${column}) EXECUTE FUNCTION joma_test_held_write()`,
    );
    const stopped = async (unless?: Promise<unknown>, count = 1) => {
      let over = false;
      unless?.then(
        () => (over = true),
        () => (over = true),
      );
      for (const end = Date.now() + 20_000; Date.now() < end;) {
        if (over) return null;
        const { rows } = await db.query(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database()
              AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
        );
        if (rows.length >= count) return rows[0].pid as number;
        await new Promise((ok) => setTimeout(ok, 10));
      }
      throw new Error(`no request reached the held write of ${table}.${column}`);
    };
    return await call(stopped);
  } finally {
    await holder.query('SELECT pg_advisory_unlock($1)', [HELD_LOCK]);
    holder.release();
    await db.query(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
  }
}
