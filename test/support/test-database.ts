import { randomBytes } from 'node:crypto';

import { Client } from 'pg';

/** Every database the suite creates starts with this; nothing else is touched. */
export const TEST_DB_PREFIX = 'joma_test_';

export function assertTestDatabaseName(name: string): void {
  if (!name.startsWith(TEST_DB_PREFIX) || !/^[a-z0-9_]+$/.test(name)) {
    throw new Error(
      `Refusing to use database "${name}": test databases must be named ${TEST_DB_PREFIX}*`,
    );
  }
}

/** postgres://user:pw@host:port (no database) from any connection URL. */
export function serverUrlOf(url: string): string {
  const u = new URL(url);
  u.pathname = '';
  u.search = '';
  return u.toString().replace(/\/$/, '');
}

export function databaseUrl(serverUrl: string, database: string): string {
  assertTestDatabaseName(database);
  return `${serverUrl}/${database}`;
}

export async function withAdminClient<T>(
  serverUrl: string,
  fn: (c: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export function newDatabaseName(runId: string, label: string): string {
  return `${TEST_DB_PREFIX}${runId}_${label}_${randomBytes(4).toString('hex')}`;
}

export async function createDatabase(
  serverUrl: string,
  name: string,
  template?: string,
): Promise<void> {
  assertTestDatabaseName(name);
  if (template) assertTestDatabaseName(template);
  await withAdminClient(serverUrl, (c) =>
    c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`),
  );
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  assertTestDatabaseName(name);
  await withAdminClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
