import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { runMigrations } from '../../src/database/migrate';
import { createDatabase, databaseUrl, serverUrlOf, TEST_DB_PREFIX } from './test-database';

/**
 * Once per run: find a PostgreSQL (TEST_DATABASE_URL, else DATABASE_URL,
 * else an embedded one under .data/test-pg), migrate a template database, and
 * hand its name to the test files, which each clone it.
 */
export default async function globalSetup(): Promise<void> {
  // Both database-backed projects (e2e, medium) name this setup; the first prepares for both.
  if (process.env.JOMA_TEST_TEMPLATE) return;
  // The dashboard's files, as npm start builds them (skipped when nothing changed).
  execFileSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'build-dashboard.mjs')], {
    stdio: 'inherit',
  });
  // The service as JavaScript, for the specs that start src/main.ts in child processes.
  process.env.JOMA_TEST_MAIN_JS = execFileSync(
    process.execPath,
    [join(__dirname, '..', '..', 'scripts', 'transpile-for-tests.mjs')],
    { encoding: 'utf8' },
  ).trim();
  const given = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  let serverUrl: string;
  if (given) {
    serverUrl = serverUrlOf(given);
  } else {
    const embedded = await startEmbeddedPostgres(
      join(__dirname, '..', '..', '.data', 'test-pg'),
      'postgres',
      { log: (line) => process.stdout.write(`${line}\n`) },
    );
    (globalThis as { __JOMA_EMBEDDED__?: unknown }).__JOMA_EMBEDDED__ = embedded;
    process.stdout.write(
      `Test database server: embedded PostgreSQL (files in ${embedded.clusterDir}); set TEST_DATABASE_URL to use another\n`,
    );
    serverUrl = serverUrlOf(embedded.url);
  }
  const runId = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const template = `${TEST_DB_PREFIX}${runId}_tpl`;
  await createDatabase(serverUrl, template);
  await runMigrations(databaseUrl(serverUrl, template));
  process.env.JOMA_TEST_SERVER_URL = serverUrl;
  // Scratch files of this run (e.g. which documented operations the e2e tests exercised).
  // .ci/run names its own (CI_TEST_RUN_DIR) to read the verdicts left there.
  const ciRunDir = process.env.CI_TEST_RUN_DIR;
  if (ciRunDir) mkdirSync(ciRunDir, { recursive: true });
  process.env.JOMA_TEST_RUN_DIR = ciRunDir || mkdtempSync(join(tmpdir(), `joma-test-${runId}-`));
  process.env.JOMA_TEST_RUN_ID = runId;
  process.env.JOMA_TEST_TEMPLATE = template;
}
