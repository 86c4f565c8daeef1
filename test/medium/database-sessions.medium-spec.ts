import { DataSource } from 'typeorm';

import { dataSourceOptions, JomaDataSource } from '../../src/database/data-source-options';
import { poolOf } from '../../src/database/hot-query';
import { sessionSettingsWarning } from '../../src/database/session-settings';
import { sql } from '../../src/database/sql';
import { createTestContext, TestContext } from '../support/test-context';

/**
 * What lets Joma's pool run behind a transaction pooler and recover from a
 * failover (docs/operations.md, "What needs a session"): named prepared
 * statements can be turned off (PgBouncer before 1.21), a connection whose
 * server cannot write is closed rather than handed to the next request,
 * and sessions that lost Joma's settings (a pooler dropped `options`) are
 * told apart. Real connections to a real PostgreSQL.
 */
describe('database sessions (medium tier)', () => {
  let c: TestContext;
  const opened: DataSource[] = [];
  const source = async (opts: Parameters<typeof dataSourceOptions>[1]) => {
    const s = new JomaDataSource(dataSourceOptions(c.url, opts));
    await s.initialize();
    opened.push(s);
    return s;
  };
  beforeAll(async () => {
    c = await createTestContext();
    await c.db.query('CREATE TABLE session_probe (id int PRIMARY KEY)');
  });
  afterAll(async () => {
    for (const s of opened) await s.destroy();
    await c.close();
  });

  /** The named statements the connection of a one-connection pool holds, after `prepared` ran in a transaction. */
  async function namedAfterPrepared(s: DataSource): Promise<string[]> {
    return s.transaction(async (em) => {
      expect(await sql(em).prepared('session_probe_rows', 'SELECT 1 AS one', [])).toEqual([
        { one: 1 },
      ]);
      const rows = await sql(em).rows<{ name: string }>(
        'SELECT name FROM pg_prepared_statements ORDER BY name',
      );
      return rows.map((r) => r.name);
    });
  }

  it('names the hot statements by default, and sends them unnamed with preparedStatements: false', async () => {
    expect(await namedAfterPrepared(await source({ poolSize: 1 }))).toEqual(['session_probe_rows']);
    expect(
      await namedAfterPrepared(await source({ poolSize: 1, preparedStatements: false })),
    ).toEqual([]);
  });

  it('closes a connection whose server refused a write as read-only (25006); the next transaction gets a new, writable one', async () => {
    const s = await source({ poolSize: 1 });
    const pidOf = () =>
      s.transaction(
        async (em) => (await sql(em).one<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!.pid,
      );
    const before = await pidOf();
    // As on a standby, or a primary being demoted: the transaction cannot write.
    await expect(
      s.transaction(async (em) => {
        await sql(em).run('SET TRANSACTION READ ONLY');
        await sql(em).run('INSERT INTO session_probe VALUES (1)');
      }),
    ).rejects.toMatchObject({ code: '25006' });
    const after = await pidOf();
    expect(after).not.toBe(before);
    await s.transaction((em) => sql(em).run('INSERT INTO session_probe VALUES (2)'));
    expect(poolOf(s).totalCount).toBe(1);
    // Any other failed statement leaves the connection in the pool.
    await expect(
      s.transaction((em) => sql(em).run('INSERT INTO session_probe VALUES (2)')),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await pidOf()).toBe(after);
  });

  it("says when the pool's sessions run without Joma's settings (a pooler dropped `options`), and is quiet when they do", async () => {
    const s = await source({ poolSize: 1, statementTimeoutMs: 5000 });
    expect(await sessionSettingsWarning(s, 5000)).toBeNull();
    // A pooler that ignores the startup options: the session has the server's defaults.
    const bare = new JomaDataSource({
      ...dataSourceOptions(c.url, { poolSize: 1 }),
      extra: { max: 1 },
    } as ConstructorParameters<typeof JomaDataSource>[0]);
    await bare.initialize();
    opened.push(bare);
    const warning = await sessionSettingsWarning(bare, 5000);
    expect(warning).toMatch(/statement_timeout is 0 ms, not 5000/);
    expect(warning).toMatch(/idle_in_transaction_session_timeout is 0 ms, not 60000/);
    expect(warning).toMatch(/ALTER ROLE/);
  });
});
