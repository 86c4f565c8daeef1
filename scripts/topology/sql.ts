import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { Client } from 'pg';

/** One short-lived connection: run `fn`, close. */
export async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  c.on('error', () => undefined); // a connection lost mid-way fails its query; nothing else to do
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

export async function canConnect(url: string): Promise<boolean> {
  return withClient(url, async (c) => (await c.query('SELECT 1')).rowCount === 1).catch(
    () => false,
  );
}

/**
 * Joma's role and database on the new cluster's primary, by
 * deploy/ha/joma-database.sql (as docker-compose.ha.yml's db-init runs it).
 */
export function createJomaDatabase(repo: string, superuserUrl: string, password: string): void {
  execFileSync(
    'psql',
    [
      superuserUrl,
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      '-v',
      `joma_password=${password}`,
      '-f',
      join(repo, 'deploy/ha/joma-database.sql'),
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}
