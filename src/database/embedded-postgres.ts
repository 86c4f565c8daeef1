import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { Client } from 'pg';

import { readSecrets, updateSecrets } from '../common/crypto/secrets-file';
import { freePort } from '../common/net/free-port';
import { EmbeddedPostgresError } from './embedded-postgres-error';
import { moduleDir, placeForRoot, postgresUser, RootPlacement } from './embedded-postgres-root';

type EmbeddedPostgresCtor = new (options: Record<string, unknown>) => {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
};

export interface EmbeddedDatabase {
  url: string;
  /** Where the cluster's files are (differs from the requested dir when relocated for root). */
  clusterDir: string;
  stop(): Promise<void>;
}

export { EmbeddedPostgresError };

export interface EmbeddedPostgresOptions {
  /** Joma's own lines (where the cluster went, a password change); the server's chatter is kept for errors only. */
  log?: (line: string) => void;
  /** The `embedded-postgres` package directory (tests point it at a copy). */
  packageDir?: string;
  /** Where a root-run cluster and binaries go when the postgres user cannot reach the project. */
  runtimeRoot?: string;
  /**
   * Run the server in a process group (and session) of its own. A terminal's
   * Ctrl-C goes to its whole foreground process group: a server in the
   * service's group would begin a fast shutdown at once, under the requests
   * the service is still finishing. For a process that stops the server
   * itself on SIGINT and SIGTERM once it has finished (`npm start`, main.ts);
   * elsewhere (tests, the CLI) the server had better stop with the process.
   */
  ownProcessGroup?: boolean;
}

/** A started server: `stop` ends it (a fast shutdown) and resolves once it has exited. */
interface RunningServer {
  stop(): Promise<void>;
}

/**
 * Before the superuser password was generated per cluster it was this
 * constant; a cluster still using it is moved to a generated one on start.
 */
const LEGACY_PASSWORD = 'joma-embedded';

/** The pid in `postmaster.pid` when that process is alive, else undefined. */
function runningPostmaster(clusterDir: string): number | undefined {
  const file = resolve(clusterDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  // A recycled pid that is not a PostgreSQL server is a stale file (the server cleans it up).
  const cmdline = `/proc/${pid}/cmdline`;
  if (existsSync(cmdline) && !readFileSync(cmdline, 'utf8').includes('postgres')) return undefined;
  return pid;
}

/**
 * The embedded-postgres package hands initdb the superuser password in a
 * file it writes into `os.tmpdir()` with the default umask: readable by
 * every local user for the length of initdb. For that call `TMPDIR` points
 * at a fresh directory only its owner may enter (0700; under root owned by
 * the postgres user, who runs initdb), removed afterwards (decisions
 * section 14). Start-up is the only thing running then.
 */
async function withPrivateTmpdir<T>(
  owner: { uid: number; gid: number } | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'joma-initdb-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The cluster's superuser password: generated once, kept in the data
 * directory's `secrets.json` (0600) under the cluster's name (`pg`, `test-pg`).
 */
function passwordFor(requestedDir: string): {
  password: string;
  created: boolean;
  keep: () => void;
} {
  const file = join(dirname(requestedDir), 'secrets.json');
  const name = basename(requestedDir);
  const kept = (readSecrets(file).postgresPasswords as Record<string, string> | undefined)?.[name];
  const password = kept ?? randomBytes(24).toString('base64url');
  const keep = () =>
    void updateSecrets(file, (s) => {
      s.postgresPasswords = { ...(s.postgresPasswords as object | undefined), [name]: password };
    });
  return { password, created: kept === undefined, keep };
}

async function loadPackage(packageDir: string): Promise<EmbeddedPostgresCtor> {
  // embedded-postgres is an ES module; a native import() keeps TypeScript from turning it into require().
  const nativeImport = new Function('s', 'return import(s)') as (
    s: string,
  ) => Promise<{ default: EmbeddedPostgresCtor }>;
  const entry = resolve(packageDir, 'dist', 'index.js');
  return (await nativeImport(pathToFileURL(entry).href)).default;
}

/**
 * The `postgres` binary of the package's platform package
 * (`@embedded-postgres/<platform>-<arch>`), as that package exports it.
 */
async function postgresBinary(packageDir: string): Promise<string> {
  const nativeImport = new Function('s', 'return import(s)') as (
    s: string,
  ) => Promise<{ postgres: string }>;
  const entry = createRequire(join(packageDir, 'package.json')).resolve(
    `@embedded-postgres/${platform()}-${arch()}`,
  );
  return (await nativeImport(pathToFileURL(entry).href)).postgres;
}

/**
 * Starts `postgres` in a session and process group of its own (`detached`),
 * so no signal sent to the service's group reaches it, and resolves once it
 * accepts connections. The `embedded-postgres` package has no option for
 * this (its start() spawns the server in the caller's group), so this does
 * what its start() does, through public means only: the platform package's
 * exported binary, run as the package would run it (as the postgres user
 * under root, LC_MESSAGES fixed so its ready line can be read). The server
 * is also sent SIGINT if this process exits without stopping it.
 */
async function startInOwnGroup(
  packageDir: string,
  args: string[],
  runAs: { uid: number; gid: number } | undefined,
  onLog: (text: string) => void,
): Promise<RunningServer> {
  const binary = await postgresBinary(packageDir);
  // As the package: executable bits a packed tarball may have lost.
  const mode = statSync(binary).mode;
  if ((mode & 0o555) !== 0o555) chmodSync(binary, mode | 0o555);
  const child = spawn(binary, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(runAs ?? {}),
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stopOnExit = () => {
    if (running()) child.kill('SIGINT');
  };
  const stop = (): Promise<void> => {
    process.off('exit', stopOnExit);
    // SIGINT: PostgreSQL's fast shutdown, as the package's stop() sends.
    if (running()) child.kill('SIGINT');
    return exited;
  };
  child.stdout.on('data', (chunk: Buffer) => onLog(chunk.toString('utf8')));
  return new Promise((ok, fail) => {
    let ready = false;
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      onLog(text);
      if (!ready && text.includes('database system is ready to accept connections')) {
        ready = true;
        process.once('exit', stopOnExit);
        ok({ stop });
      }
    });
    child.once('error', (err) => fail(err));
    // Exited before it was ready: its own lines (onLog, all read by 'close') say why, as with the package.
    child.once('close', () => {
      if (!ready) fail(undefined);
    });
  });
}

function defaultPackageDir(): string {
  // Its package.json is not exported, so require.resolve cannot find the directory.
  return moduleDir('embedded-postgres', __dirname);
}

/**
 * Starts (initialising on first use) a PostgreSQL server from the
 * `embedded-postgres` package whose files live in `dir`, listening on
 * 127.0.0.1 only, and makes sure `database` exists. The superuser password
 * is generated per cluster and kept in `DATA_DIR/secrets.json` (0600).
 *
 * PostgreSQL refuses to run as root, so under root it runs as the `postgres`
 * system user (created if missing). When that user cannot enter `dir` or the
 * package's binaries (a checkout in root's home or a 0700 directory), the
 * cluster and a copy of the binaries move under `runtimeRoot`
 * (`/var/lib/joma`), and one log line says where.
 *
 * Every failure a person can fix is an EmbeddedPostgresError naming the fix.
 */
export async function startEmbeddedPostgres(
  dir: string,
  database: string,
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const requestedDir = resolve(dir);
  let clusterDir = requestedDir;
  let packageDir = options.packageDir ?? defaultPackageDir();
  const asRoot = userInfo().uid === 0;
  let placement: RootPlacement | undefined;
  if (asRoot) {
    placement = placeForRoot(requestedDir, packageDir, options.runtimeRoot ?? '/var/lib/joma');
    clusterDir = placement.clusterDir;
    packageDir = placement.packageDir;
    if (placement.note) log(placement.note);
  } else {
    try {
      mkdirSync(dirname(clusterDir), { recursive: true });
    } catch (err) {
      throw new EmbeddedPostgresError(
        `The embedded PostgreSQL cannot keep its files in ${clusterDir} (${(err as Error).message}). ` +
          'Set DATA_DIR to a directory you can write to, or DATABASE_URL to use a PostgreSQL server of your own.',
      );
    }
  }

  const pid = runningPostmaster(clusterDir);
  if (pid !== undefined) {
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL in ${clusterDir} is already running (process ${pid}), ` +
        'most likely for another `npm start` or `npm test` on this checkout: ' +
        'stop that process first, or set DATABASE_URL to use a PostgreSQL server of your own.',
    );
  }

  const EmbeddedPostgres = await loadPackage(packageDir);
  const fresh = !existsSync(resolve(clusterDir, 'PG_VERSION'));
  const secret = passwordFor(requestedDir);
  const recent: string[] = [];
  const remember = (m: string) => {
    const line = m.trim();
    if (!line) return;
    recent.push(line);
    if (recent.length > 20) recent.shift();
  };
  const port = await freePort();
  const postgresFlags = [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'timezone=UTC',
  ];
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password: secret.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags,
    onLog: (m: string) => remember(String(m)),
    onError: (m: unknown) => remember(m instanceof Error ? m.message : String(m)),
  });
  const failed = (step: string, err: unknown) => {
    const reason =
      (err instanceof Error && err.message) ||
      recent.filter((l) => /FATAL|ERROR|error/i.test(l)).pop() ||
      recent[recent.length - 1] ||
      'it exited without saying why';
    return new EmbeddedPostgresError(
      `The embedded PostgreSQL in ${clusterDir} could not ${step}: ${reason.split('\n')[0]}. ` +
        'Fix the cause, point DATA_DIR at another directory, or set DATABASE_URL to use a PostgreSQL server of your own.',
    );
  };
  if (fresh) {
    await withPrivateTmpdir(asRoot ? postgresUser() : undefined, () => pg.initialise()).catch(
      (err: unknown) => {
        throw failed('be initialised', err);
      },
    );
    secret.keep();
  }
  const server: RunningServer = await (
    options.ownProcessGroup
      ? startInOwnGroup(
          packageDir,
          ['-D', clusterDir, '-p', String(port), ...postgresFlags],
          asRoot ? postgresUser() : undefined,
          remember,
        )
      : pg.start().then(() => ({ stop: () => pg.stop() }))
  ).catch((err: unknown) => {
    throw failed('start', err);
  });
  try {
    const base = (password: string) =>
      `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
    if (!fresh && secret.created) {
      // A cluster from before per-cluster passwords: replace the constant one.
      await withClient(`${base(LEGACY_PASSWORD)}/postgres`, (c) =>
        c.query(`ALTER ROLE postgres PASSWORD '${secret.password}'`),
      );
      secret.keep();
      log('Embedded PostgreSQL: replaced the built-in superuser password with a generated one');
    }
    const url = base(secret.password);
    await withClient(`${url}/postgres`, async (c) => {
      const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      if (found.rowCount === 0) await c.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
    });
    return { url: `${url}/${database}`, clusterDir, stop: () => server.stop() };
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw failed('be prepared', err);
  }
}

async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
