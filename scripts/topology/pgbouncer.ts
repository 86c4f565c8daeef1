import { chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { packageVersion } from './packages';
import { serviceIds } from './patroni';
import type { PortPlan } from './ports';
import { alive, type Started, Supervisor, until } from './processes';
import { canConnect } from './sql';

/** PgBouncer's version from its Debian package ("1.18.0-1+deb12u1" -> [1, 18]). */
export function pgbouncerVersion(): [number, number] {
  const v = packageVersion('pgbouncer') ?? '0.0';
  const [major, minor] = v.split(/[.-]/).map(Number);
  return [major, minor];
}

/** Whether this PgBouncer keeps named prepared statements apart in transaction mode (1.21+, `max_prepared_statements`). */
export const tracksPreparedStatements = ([major, minor]: [number, number]) =>
  major > 1 || (major === 1 && minor >= 21);

/** Sets `key = value` in an ini text (the line must exist), or drops the line when value is null. */
export function setIni(text: string, key: string, value: string | null): string {
  const line = new RegExp(`^${key} *=.*$`, 'm');
  if (!line.test(text)) throw new Error(`pgbouncer.ini has no ${key} line`);
  return text.replace(
    line,
    value === null ? `; ${key}: not supported by this PgBouncer` : `${key} = ${value}`,
  );
}

/**
 * deploy/ha/pgbouncer.ini as the drill runs it: loopback addresses and
 * scratch paths; everything else as docker-compose.ha.yml has it, transaction
 * mode included. A PgBouncer older than 1.21 (Debian 12 ships 1.18) has no
 * `max_prepared_statements`: the line goes, and `preparedStatements` says
 * Joma must run with DB_PREPARED_STATEMENTS=false (the same statements,
 * unnamed) behind it.
 */
export function renderPgbouncerIni(
  template: string,
  opts: { ports: PortPlan; dir: string; version: [number, number] },
): { ini: string; preparedStatements: boolean } {
  let ini = template.replace(
    /^joma = host=\S+ port=\d+/m,
    `joma = host=127.0.0.1 port=${opts.ports.haproxyPrimary}`,
  );
  ini = setIni(ini, 'listen_addr', '127.0.0.1');
  ini = setIni(ini, 'listen_port', String(opts.ports.pgbouncer));
  ini = setIni(ini, 'auth_file', join(opts.dir, 'userlist.txt'));
  ini = setIni(ini, 'logfile', join(opts.dir, 'pgbouncer-own.log'));
  ini = setIni(ini, 'pidfile', join(opts.dir, 'pgbouncer.pid'));
  if (!/^pool_mode = transaction$/m.test(ini))
    throw new Error('deploy/ha/pgbouncer.ini must say pool_mode = transaction');
  if (tracksPreparedStatements(opts.version)) return { ini, preparedStatements: true };
  ini = setIni(ini, 'max_prepared_statements', null);
  return { ini, preparedStatements: false };
}

export async function startPgbouncer(
  sup: Supervisor,
  scratch: string,
  repo: string,
  ports: PortPlan,
  jomaPassword: string,
): Promise<{ process: Started; preparedStatements: boolean; version: string }> {
  const dir = join(scratch, 'pgbouncer');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const version = pgbouncerVersion();
  const { ini, preparedStatements } = renderPgbouncerIni(
    readFileSync(join(repo, 'deploy/ha/pgbouncer.ini'), 'utf8'),
    { ports, dir, version },
  );
  writeFileSync(join(dir, 'pgbouncer.ini'), ini, { mode: 0o600 });
  writeFileSync(join(dir, 'userlist.txt'), `"joma" "${jomaPassword}"\n`, { mode: 0o600 });
  if (process.getuid?.() === 0)
    for (const f of ['', 'pgbouncer.ini', 'userlist.txt']) chownSync(join(dir, f), ...serviceIds());
  const proc = sup.start('pgbouncer', 'pgbouncer', [join(dir, 'pgbouncer.ini')], {
    asService: true,
  });
  const url = `postgres://joma:${jomaPassword}@127.0.0.1:${ports.pgbouncer}/joma`;
  await until('PgBouncer serving', async () => alive(proc) && canConnect(url), 30_000, 300);
  return { process: proc, preparedStatements, version: version.join('.') };
}
