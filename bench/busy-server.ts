import type { Client } from 'pg';

/** Databases that Joma's benchmarks and test runs create: a live session in one means they are running. */
const NEIGHBOUR_PATTERNS = ['joma_bench\\_%', 'joma_test\\_%'];

/**
 * The benchmark and test databases on this PostgreSQL server that have a
 * session open now (other than `client`'s own), with their session counts.
 * A benchmark beside another benchmark, or beside the test suite, measures
 * both: its figures mean nothing (bench/README.md, "Busy server").
 */
export async function busyNeighbours(
  client: Client,
): Promise<{ database: string; sessions: number }[]> {
  const { rows } = await client.query<{ database: string; sessions: string }>(
    `SELECT datname AS database, count(*) AS sessions
       FROM pg_stat_activity
      WHERE datname LIKE ANY ($1::text[]) AND pid <> pg_backend_pid()
      GROUP BY datname
      ORDER BY datname`,
    [NEIGHBOUR_PATTERNS],
  );
  return rows.map((r) => ({ database: r.database, sessions: Number(r.sessions) }));
}

/**
 * Refuses to start a benchmark while another benchmark or a test run is
 * using the server, unless BENCH_ALLOW_BUSY=1 says to measure anyway.
 */
export async function assertServerQuiet(client: Client, env = process.env): Promise<void> {
  if (env.BENCH_ALLOW_BUSY === '1') return;
  const busy = await busyNeighbours(client);
  if (!busy.length) return;
  const names = busy.map((b) => `${b.database} (${b.sessions} sessions)`).join(', ');
  throw new Error(
    `Another benchmark or test run is using this PostgreSQL server: ${names}. ` +
      'Figures taken beside it measure both; wait until it ends, ' +
      'or set BENCH_ALLOW_BUSY=1 to measure anyway.',
  );
}
