import { Client } from 'pg';

import { assertServerQuiet, busyNeighbours } from '../../bench/busy-server';
import {
  createDatabase,
  databaseUrl,
  dropDatabase,
  newDatabaseName,
} from '../support/test-database';

/**
 * A benchmark refuses to start while another benchmark or a test run has a
 * session open on the same PostgreSQL server (their figures would measure
 * both). Seen through pg_stat_activity: a database named like Joma's
 * benchmark or test databases, with a session other than the caller's.
 */
describe('bench: refusing to measure beside another run', () => {
  const serverUrl = process.env.JOMA_TEST_SERVER_URL!;
  const name = newDatabaseName(process.env.JOMA_TEST_RUN_ID ?? 'x', 'busy');
  let admin: Client;
  beforeAll(async () => {
    await createDatabase(serverUrl, name);
    admin = new Client({ connectionString: `${serverUrl}/postgres` });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await dropDatabase(serverUrl, name);
  });

  const listed = async () => (await busyNeighbours(admin)).find((b) => b.database === name);

  it('names a database with a session open, until it closes', async () => {
    expect(await listed()).toBeUndefined();
    const other = new Client({ connectionString: databaseUrl(serverUrl, name) });
    await other.connect();
    try {
      expect(await listed()).toEqual({ database: name, sessions: 1 });
      const refused = await assertServerQuiet(admin, {}).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toContain(`${name} (1 sessions)`);
      expect((refused as Error).message).toContain('BENCH_ALLOW_BUSY=1');
      await expect(assertServerQuiet(admin, { BENCH_ALLOW_BUSY: '1' })).resolves.toBeUndefined();
    } finally {
      await other.end();
    }
    // A closed session leaves pg_stat_activity a moment after the client has gone.
    for (let i = 0; i < 50 && (await listed()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await listed()).toBeUndefined();
  });

  it('does not count the session asking', async () => {
    const self = new Client({ connectionString: databaseUrl(serverUrl, name) });
    await self.connect();
    try {
      const mine = (await busyNeighbours(self)).find((b) => b.database === name);
      expect(mine).toBeUndefined();
    } finally {
      await self.end();
    }
  });
});
