import { Pool } from 'pg';
import { DataSource } from 'typeorm';

import { loadMigrations } from '../../migrations';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { createDatabase, databaseUrl, dropDatabase, newDatabaseName } from './test-database';

/**
 * An empty database of its own for a spec about one migration: created
 * before the spec's tests, dropped after them, with a pool on it (`db`,
 * connecting on first use) and a way to migrate it up to just before the
 * migration under test, so the test can store data of the older shape.
 */
export function migrationScratch(label: string): {
  url: string;
  db: Pool;
  /** Runs every migration before `name`; how many that was. */
  migrateUpTo(name: string): Promise<number>;
} {
  const serverUrl = process.env.JOMA_TEST_SERVER_URL!;
  const database = newDatabaseName(process.env.JOMA_TEST_RUN_ID!, label);
  const url = databaseUrl(serverUrl, database);
  const db = new Pool({ connectionString: url, max: 2 });
  beforeAll(() => createDatabase(serverUrl, database));
  // Dropping a database waits for a checkpoint: slow on a busy machine, so more than the default 30 s.
  afterAll(async () => {
    await db.end();
    await dropDatabase(serverUrl, database);
  }, 120_000);
  return {
    url,
    db,
    async migrateUpTo(name) {
      const all = loadMigrations();
      const index = all.findIndex((m) => m.name === name);
      if (index < 0) throw new Error(`no migration ${name}`);
      const ds = new DataSource({
        ...dataSourceOptions(url, { poolSize: 1 }),
        migrations: all.slice(0, index),
      });
      await ds.initialize();
      await ds.runMigrations({ transaction: 'each' });
      await ds.destroy();
      return index;
    },
  };
}
