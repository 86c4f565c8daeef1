import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from 'pg';

import { freePort } from '../../src/common/net/free-port';
import { findProgram, runTool, scratchDir } from './local-postgres-tools';

/** PostgreSQL's server programs (initdb, pg_ctl, pg_basebackup), or null when absent. */
export function postgresBinDir(): string | null {
  const fromEnv = process.env.JOMA_TEST_PG_BIN;
  const initdb = findProgram('initdb', [
    ...(fromEnv ? [join(fromEnv, 'initdb')] : []),
    ...['17', '16', '15'].map((v) => `/usr/lib/postgresql/${v}/bin/initdb`),
  ]);
  return initdb ? initdb.slice(0, -'/initdb'.length) : null;
}

/** One server of the pair: its URL for a database, and its log since `mark()`. */
export interface PairServer {
  url(database: string): string;
  /** A position in the server's log (every statement is logged: log_statement = all). */
  mark(): number;
  /** The log written since `mark`. */
  logSince(mark: number): string;
  /** One statement on a connection of its own (to `database`, default `postgres`). */
  query<R>(text: string, params?: unknown[], database?: string): Promise<R[]>;
}

export interface PgPair {
  primary: PairServer;
  standby: PairServer;
  /** Waits until the standby has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL primary and a streaming hot standby of its own, for tests:
 * `initdb` and `pg_ctl` on free loopback ports in a temporary directory,
 * the standby made by `pg_basebackup -R` after `prepare(primaryUrl)` ran
 * (a database created and migrated on the primary, so the standby starts
 * with it). Both log every statement, so a test can tell which server ran
 * a query. `stop()` stops both and removes the directory; call it always.
 * `settings`: more postgresql.conf lines for both servers, after these (so
 * they win): bench/lists-scale.ts turns the statement log off and sizes WAL
 * for seeding millions of rows.
 */
export async function startPgPair(
  prepare: (primaryServerUrl: string) => Promise<void>,
  settings: string[] = [],
): Promise<PgPair> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server programs (initdb) not found');
  const { dir, remove } = scratchDir('joma-pgpair-');
  const started: string[] = [];
  const stop = async () => {
    for (const data of started.reverse())
      try {
        runTool(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already stopped.
      }
    remove();
  };
  try {
    const [primaryPort, standbyPort] = [await freePort(), await freePort()];
    const conf = (port: number) =>
      [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        'fsync = off',
        'max_connections = 60',
        "log_statement = 'all'",
        "log_line_prefix = '%m [%p] %a: '",
        ...settings,
        '',
      ].join('\n');
    const primaryData = join(dir, 'primary');
    runTool(join(bin, 'initdb'), [
      '-D',
      primaryData,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    appendFileSync(join(primaryData, 'postgresql.conf'), conf(primaryPort));
    const primaryLog = join(dir, 'primary.log');
    runTool(join(bin, 'pg_ctl'), ['-D', primaryData, '-l', primaryLog, '-w', 'start']);
    started.push(primaryData);
    const primaryServer = `postgres://postgres@127.0.0.1:${primaryPort}`;
    await prepare(primaryServer);

    const standbyData = join(dir, 'standby');
    runTool(
      join(bin, 'pg_basebackup'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(primaryPort),
        '-U',
        'postgres',
        '-D',
        standbyData,
        '-R',
        '-X',
        'stream',
        '--checkpoint=fast',
      ],
      // A bench's primary may hold gigabytes by now.
      { timeout: 30 * 60_000 },
    );
    appendFileSync(join(standbyData, 'postgresql.conf'), conf(standbyPort));
    const standbyLog = join(dir, 'standby.log');
    runTool(join(bin, 'pg_ctl'), ['-D', standbyData, '-l', standbyLog, '-w', 'start']);
    started.push(standbyData);

    const server = (port: number, log: string): PairServer => ({
      url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
      mark: () => statSync(log).size,
      logSince: (mark) => readFileSync(log).subarray(mark).toString('utf8'),
      query: async <R>(text: string, params: unknown[] = [], database = 'postgres') => {
        const c = new Client({
          connectionString: `postgres://postgres@127.0.0.1:${port}/${database}`,
        });
        await c.connect();
        try {
          return (await c.query(text, params)).rows as R[];
        } finally {
          await c.end();
        }
      },
    });
    const primary = server(primaryPort, primaryLog);
    const standby = server(standbyPort, standbyLog);
    return {
      primary,
      standby,
      async caughtUp(timeoutMs = 15_000) {
        const [{ lsn }] = await primary.query<{ lsn: string }>(
          'SELECT pg_current_wal_lsn()::text AS lsn',
        );
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const [{ ok }] = await standby.query<{ ok: boolean }>(
            'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok',
            [lsn],
          );
          if (ok) return;
          if (Date.now() > deadline) throw new Error(`the standby did not replay up to ${lsn}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
