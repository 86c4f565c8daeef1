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
