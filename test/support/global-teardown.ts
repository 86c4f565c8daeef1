import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Config } from '@jest/types';

import { operationsDocumentedFile, operationsSeenDir } from './openapi-conformance';
import { dropDatabase, withAdminClient } from './test-database';

/**
 * After a whole run (no file or test-name filter): the documented API
 * operations no e2e test exercised. There must be none; the run fails and
 * names them (also in JOMA_TEST_RUN_DIR/operations-unexercised.txt, which
 * .ci/run counts as a failure).
 */
function unexercisedOperations(globalConfig: Config.GlobalConfig): string[] {
  // Jest 30: the path filter is `testPathPatterns` (a TestPathPatterns with `isSet()`).
  const byPath = (globalConfig as { testPathPatterns?: { isSet?: () => boolean } })
    .testPathPatterns;
  const filtered =
    byPath?.isSet?.() ||
    globalConfig.testNamePattern ||
    globalConfig.onlyChanged ||
    globalConfig.findRelatedTests;
  if (filtered || !existsSync(operationsDocumentedFile())) return [];
  const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const seen = new Set(
    existsSync(operationsSeenDir())
      ? readdirSync(operationsSeenDir()).flatMap((f) => lines(join(operationsSeenDir(), f)))
      : [],
  );
  return lines(operationsDocumentedFile()).filter((op) => !seen.has(op));
}

/** Drops every database of this run, then stops an embedded server if one was started. */
export default async function globalTeardown(globalConfig: Config.GlobalConfig): Promise<void> {
  const runDir = process.env.JOMA_TEST_RUN_DIR;
  const unexercised = runDir ? unexercisedOperations(globalConfig) : [];
  const serverUrl = process.env.JOMA_TEST_SERVER_URL;
  const runId = process.env.JOMA_TEST_RUN_ID;
  if (serverUrl && runId) {
    const rows = await withAdminClient(serverUrl, (c) =>
      c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
        `joma_test_${runId}_%`,
      ]),
    );
    // Eight at a time: each DROP DATABASE waits on a checkpoint of its own, and
    // one after another they held the end of a full run for ~25 s (~200 databases).
    const names = rows.rows.map((r) => r.datname);
    const dropping = async () => {
      for (let name = names.pop(); name; name = names.pop()) await dropDatabase(serverUrl, name);
    };
    await Promise.all(Array.from({ length: 8 }, dropping));
  }
  // Named by both database-backed projects: the first teardown does the work.
  delete process.env.JOMA_TEST_RUN_ID;
  const holder = globalThis as { __JOMA_EMBEDDED__?: { stop(): Promise<void> } };
  const embedded = holder.__JOMA_EMBEDDED__;
  delete holder.__JOMA_EMBEDDED__;
  if (embedded) await embedded.stop();
  delete process.env.JOMA_TEST_RUN_DIR;
  if (runDir) {
    if (unexercised.length > 0)
      writeFileSync(join(runDir, 'operations-unexercised.txt'), `${unexercised.join('\n')}\n`);
    else if (!process.env.CI_TEST_RUN_DIR) rmSync(runDir, { recursive: true, force: true });
  }
  if (unexercised.length > 0)
    throw new Error(
      `Documented operations no e2e test exercised (${unexercised.length}):\n  ${unexercised.join('\n  ')}`,
    );
}
