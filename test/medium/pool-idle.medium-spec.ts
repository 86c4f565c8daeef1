import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

import { dataSourceOptions, JomaDataSource } from '../../src/database/data-source-options';
import { poolOf } from '../../src/database/hot-query';
import { createTestContext, TestContext } from '../support/test-context';

/**
 * The service's connections stay open while idle: a quiet replica must not
 * meet its next burst with an empty pool, every request waiting for a new
 * backend (bench/README.md, "Connection pool"). pg-pool's idle timer is a
 * setTimeout started when a connection is released; fake timers let an hour
 * of quiet pass at once over a real pool of real connections.
 */
describe('database pool (medium tier)', () => {
  let c: TestContext;
  let source: DataSource;

  beforeAll(async () => {
    c = await createTestContext();
    source = new DataSource(dataSourceOptions(c.url, { poolSize: 3 }));
    await source.initialize();
  });
  afterAll(async () => {
    jest.useRealTimers();
    await source.destroy();
    await c.close();
  });

  it('keeps its connections open through an idle hour', async () => {
    const pool = (source.driver as unknown as { master: Pool }).master;
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    // Three at once: three connections, each released (and its idle timer started) after.
    await Promise.all([1, 2, 3].map(() => source.query('SELECT pg_sleep(0.05)')));
    expect(pool.totalCount).toBe(3);

    jest.advanceTimersByTime(60 * 60_000);

    expect(pool.totalCount).toBe(3);
    expect(pool.idleCount).toBe(3);
    jest.useRealTimers();
    // And PostgreSQL still has their three sessions (besides any of the test context's own).
    const sessions = (await source.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'joma'`,
    )) as { n: number }[];
    expect(sessions[0].n).toBeGreaterThanOrEqual(3);
  });

  it('closes every connection before destroy() resolves, not only asks the server to', async () => {
    // pg-pool's end() resolves once it has written each connection's Terminate; a
    // server stopped right after (the embedded one, after app.close()) terminated
    // sessions still open, and the service logged lost connections (57P01).
    const closing = new JomaDataSource(
      dataSourceOptions(c.url, { poolSize: 3, applicationName: 'joma-closing' }),
    );
    await closing.initialize();
    await Promise.all([1, 2, 3].map(() => closing.query('SELECT pg_sleep(0.05)')));
    const pool = poolOf(closing);
    expect(pool.totalCount).toBe(3);
    // pg-pool says 'remove' once a connection it ended has closed (its socket, so its session).
    let closed = 0;
    pool.on('remove', () => closed++);

    await closing.destroy();

    expect(closed).toBe(3);
  });
});
