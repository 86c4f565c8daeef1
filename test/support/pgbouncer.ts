import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from 'pg';

import { freePort } from '../../src/common/net/free-port';
import { findProgram, runTool, scratchDir, unprivileged } from './local-postgres-tools';

/** The PgBouncer program, or null when it is not installed (Debian: `apt-get install pgbouncer`). */
export function pgbouncerBinary(): string | null {
  return findProgram('pgbouncer', ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']);
}

/** PgBouncer's version as [major, minor], from `pgbouncer --version`. */
export function pgbouncerVersion(binary: string): [number, number] {
  const m = /PgBouncer (\d+)\.(\d+)/.exec(runTool(binary, ['--version']));
  if (!m) throw new Error('pgbouncer --version: no version found');
  return [Number(m[1]), Number(m[2])];
}

/** Named prepared statements through transaction pooling: PgBouncer 1.21 and later. */
export function keepsPreparedStatements([major, minor]: [number, number]): boolean {
  return major > 1 || minor >= 21;
}

export interface PgBouncer {
  /** `server`'s database `name` through PgBouncer. */
  url(database: string): string;
  version: [number, number];
  /** PgBouncer's log so far. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * A PgBouncer of the test's own on a free loopback port, in transaction
 * pooling mode, in front of the PostgreSQL at `serverUrl` (any of its
 * databases), trusting the user of that URL. `defaultPoolSize` server
 * connections per database and user; `max_prepared_statements` on where the
 * version has it. Joma's startup parameter `options` is ignored, as
 * docs/operations.md tells an operator to configure it.
 */
export async function startPgBouncer(
  serverUrl: string,
  opts: { defaultPoolSize: number },
): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error('pgbouncer is not installed');
  const version = pgbouncerVersion(binary);
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const { dir, remove } = scratchDir('joma-pgbouncer-');
  const ini = join(dir, 'pgbouncer.ini');
  const logFile = join(dir, 'pgbouncer.log');
  writeFileSync(join(dir, 'users.txt'), `"${user}" "${password}"\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432} user=${user}${password ? ` password=${password}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.defaultPoolSize}`,
      'max_client_conn = 500',
      'ignore_startup_parameters = options',
      ...(keepsPreparedStatements(version) ? ['max_prepared_statements = 200'] : []),
      `logfile = ${logFile}`,
      '',
    ].join('\n'),
  );
  const ids = unprivileged();
  // The files are read by PgBouncer running as `postgres` under root.
  if (ids) for (const f of [ini, join(dir, 'users.txt')]) chownSync(f, ids.uid, ids.gid);
  const child: ChildProcess = spawn(binary, [ini], { stdio: 'ignore', ...ids });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const url = (database: string) =>
    `postgres://${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ''}@127.0.0.1:${port}/${database}`;
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    remove();
  };
  // Ready once a client gets through to the server.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = new Client({ connectionString: url('postgres') });
    try {
      await probe.connect();
      await probe.query('SELECT 1');
      await probe.end();
      break;
    } catch (err) {
      await probe.end().catch(() => undefined);
      if (Date.now() > deadline || child.exitCode !== null) {
        const why = `PgBouncer did not start: ${(err as Error).message}\n${log()}`;
        await stop();
        throw new Error(why);
      }
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
  return { url, version, log, stop };
}
