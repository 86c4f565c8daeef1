import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

import { postgresUser } from '../../src/database/embedded-postgres-root';

/**
 * Running PostgreSQL's and PgBouncer's own programs from a test: both refuse
 * to run as root, so under root (a container, CI) they run as the `postgres`
 * system user, in a temporary directory it owns.
 */

/** The uid and gid to spawn the programs with: none when not root. */
export function unprivileged(): { uid: number; gid: number } | undefined {
  return process.getuid?.() === 0 ? postgresUser() : undefined;
}

/** A fresh temporary directory the programs can write, removed by `remove()`. */
export function scratchDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const ids = unprivileged();
  if (ids) chownSync(dir, ids.uid, ids.gid);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs a program to its end as the unprivileged user; throws with its output when it fails. */
export function runTool(cmd: string, args: string[], opts: SpawnSyncOptions = {}): string {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    timeout: 120_000,
    ...unprivileged(),
    ...opts,
  });
  const out = `${String(r.stdout ?? '')}${String(r.stderr ?? '')}`;
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${out}`);
  return out;
}

/** The first of `candidates` that exists, or the name found on PATH; null when none. */
export function findProgram(name: string, candidates: string[]): string | null {
  for (const c of candidates) if (existsSync(c)) return c;
  for (const dir of (process.env.PATH ?? '').split(delimiter))
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  return null;
}
