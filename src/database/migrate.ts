import { dataSourceOptions, JomaDataSource } from './data-source-options';

const MIGRATION_LOCK = 7_345_001;

/**
 * Applies pending migrations under a session advisory lock, so replicas that
 * start together migrate once. Returns the names applied.
 */
export async function runMigrations(url: string): Promise<string[]> {
  const ds = new JomaDataSource(
    dataSourceOptions(url, { poolSize: 2, applicationName: 'joma-migrate' }),
  );
  await ds.initialize();
  const runner = ds.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    // A connection lost on the way (start-up tries again) must not leave the pool open.
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release().catch(() => undefined);
    await ds.destroy().catch(() => undefined);
  }
}
