import { dropDatabase, withAdminClient } from './test-database';

/** Drops every database of this run, then stops an embedded server if one was started. */
export default async function globalTeardown(): Promise<void> {
  const serverUrl = process.env.JOMA_TEST_SERVER_URL;
  const runId = process.env.JOMA_TEST_RUN_ID;
  if (serverUrl && runId) {
    const rows = await withAdminClient(serverUrl, (c) =>
      c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
        `joma_test_${runId}_%`,
      ]),
    );
    for (const { datname } of rows.rows) await dropDatabase(serverUrl, datname);
  }
  // Named by both database-backed projects: the first teardown does the work.
  delete process.env.JOMA_TEST_RUN_ID;
  const holder = globalThis as { __JOMA_EMBEDDED__?: { stop(): Promise<void> } };
  const embedded = holder.__JOMA_EMBEDDED__;
  delete holder.__JOMA_EMBEDDED__;
  if (embedded) await embedded.stop();
}
