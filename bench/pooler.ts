/**
 * P1 and P2 straight to PostgreSQL against through HAProxy and PgBouncer in
 * transaction mode (`npm run bench:pooler`; issue 59 item 6): what the
 * topology of docs/operations.md ("Running on more than one machine") costs
 * a request, in one run.
 *
 * On the DATABASE_URL server (a scratch database, as every bench): a TCP
 * HAProxy in front of it and a PgBouncer (transaction pooling) in front of
 * HAProxy, both on loopback, as deploy/ha/ chains them. Three Joma servers
 * (bench/server-process.ts, the whole stack, as bench:api runs it):
 *
 *   direct          DATABASE_URL to PostgreSQL, named prepared statements
 *   direct-unnamed  the same with DB_PREPARED_STATEMENTS=false
 *   pooled          DATABASE_URL through HAProxy + PgBouncer, DATABASE_DIRECT_URL
 *                   to PostgreSQL, DB_PREPARED_STATEMENTS=false before PgBouncer 1.21
 *
 * driven in alternating rounds (BENCH_API_ROUNDS, 15, of BENCH_API_REQUESTS,
 * 1000, at BENCH_API_CONCURRENCY, 32), so the host's drift hits all three
 * alike; each ratio is the median of the rounds' ratios (bench/README.md,
 * "Rounds"). Where the cost goes: the CPU HAProxy and PgBouncer spend per
 * request (from /proc, beside Joma's own), and one `SELECT 1` round trip
 * (extended protocol, unnamed, as Joma sends them) three ways: straight,
 * through HAProxy, through HAProxy and PgBouncer, in alternating blocks.
 *
 * Writes bench/report-pooler.json (gitignored).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { Client } from 'pg';

import { freePort } from '../src/common/net/free-port';
import { LoadSpec, runLoad } from './load';
import { databaseLabel, scratchDatabase } from './scratch-database';
import { cpuMs, hostTicks, type RunningServer, startServer, stealPercent } from './server-process';
import { median, p99, round } from './stats';

const REQUESTS = Number(process.env.BENCH_API_REQUESTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_API_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 15);
/** SELECT 1 round trips per path, in blocks of 200 taken in turn. */
const PINGS = Number(process.env.BENCH_POOLER_PINGS ?? 3000);
const log = (line: string) => process.stdout.write(`${line}\n`);

type Route = Omit<LoadSpec, 'port' | 'requests' | 'concurrency'>;
const NAMES = ['direct', 'direct-unnamed', 'pooled'] as const;
type Name = (typeof NAMES)[number];

interface Helper {
  child: ChildProcess;
  exited: Promise<void>;
}

/** The `postgres` account's ids when running as root: PgBouncer refuses to run as root. */
function serviceIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  return { uid: id('-u'), gid: id('-g') };
}

function startHelper(cmd: string, args: string[], ids?: { uid: number; gid: number }): Helper {
  const child = spawn(cmd, args, { stdio: 'ignore', ...ids });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  child.once('error', () => undefined);
  return { child, exited };
}

async function stopHelper(h: Helper): Promise<void> {
  if (h.child.exitCode === null && h.child.signalCode === null) h.child.kill('SIGTERM');
  await h.exited;
}

async function waitForSql(url: string, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const c = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
      await c.end();
      return;
    } catch (err) {
      await c.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`${what} did not answer: ${String(err)}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
}

/** PgBouncer's version as [major, minor] (`pgbouncer --version`). */
function pgbouncerVersion(): [number, number] {
  const m = /PgBouncer (\d+)\.(\d+)/.exec(
    execFileSync('pgbouncer', ['--version'], { encoding: 'utf8' }),
  );
  if (!m) throw new Error('pgbouncer --version: no version');
  return [Number(m[1]), Number(m[2])];
}

/**
 * HAProxy (TCP, as deploy/ha/haproxy.cfg's primary port) in front of the
 * server, PgBouncer (transaction mode, deploy/ha/pgbouncer.ini's pool
 * settings) in front of HAProxy.
 */
async function startChain(serverUrl: URL, dir: string) {
  const ids = serviceIds();
  const haproxyPort = await freePort();
  const bouncerPort = await freePort();
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 4096',
      'defaults',
      '  timeout connect 2s',
      'listen postgres_primary',
      '  mode tcp',
      `  bind 127.0.0.1:${haproxyPort}`,
      '  timeout client 1h',
      '  timeout server 1h',
      `  server pg ${serverUrl.hostname}:${serverUrl.port || 5432}`,
      '',
    ].join('\n'),
  );
  const haproxy = startHelper('haproxy', ['-db', '-f', cfg]);
  const version = pgbouncerVersion();
  const preparedStatements = version[0] > 1 || version[1] >= 21;
  const user = decodeURIComponent(serverUrl.username || 'postgres');
  const password = decodeURIComponent(serverUrl.password);
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'users.txt'), `"${user}" "${password}"\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${haproxyPort} user=${user}${password ? ` password=${password}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${bouncerPort}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 40',
      'max_client_conn = 2000',
      'ignore_startup_parameters = extra_float_digits,options',
      'server_reset_query = DISCARD ALL',
      ...(preparedStatements ? ['max_prepared_statements = 200'] : []),
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  if (ids)
    for (const f of ['', 'pgbouncer.ini', 'users.txt']) chownSync(join(dir, f), ids.uid, ids.gid);
  const bouncer = startHelper('pgbouncer', [ini], ids);
  const via = (port: number, database: string) => {
    const u = new URL(serverUrl.toString());
    u.hostname = '127.0.0.1';
    u.port = String(port);
    u.pathname = `/${database}`;
    return u.toString();
  };
  return {
    haproxy,
    bouncer,
    version: version.join('.'),
    preparedStatements,
    throughHaproxy: (db: string) => via(haproxyPort, db),
    throughBouncer: (db: string) => via(bouncerPort, db),
  };
}

/** One SELECT 1 round trip per call on an open connection, extended protocol, unnamed. */
async function pingBlock(client: Client, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await client.query({ text: 'SELECT $1::int AS one', values: [1] });
    out.push((performance.now() - t) * 1000);
  }
  return out;
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase('pooler');
  const dir = mkdtempSync(join(tmpdir(), 'joma-bench-pooler-'));
  const servers: RunningServer[] = [];
  let chain: Awaited<ReturnType<typeof startChain>> | undefined;
  try {
    const direct = new URL(scratch.url);
    const database = direct.pathname.slice(1);
    chain = await startChain(direct, dir);
    await waitForSql(chain.throughHaproxy(database), 'HAProxy');
    await waitForSql(chain.throughBouncer(database), 'PgBouncer');
    log(
      `PgBouncer ${chain.version}, transaction mode, named prepared statements through it: ${chain.preparedStatements}`,
    );

    const byName: Record<Name, RunningServer> = {
      direct: await startServer('joma', scratch.url, { rateLimitPerSecond: 1_000_000 }),
      'direct-unnamed': await startServer('joma', scratch.url, {
        rateLimitPerSecond: 1_000_000,
        dbPreparedStatements: false,
      }),
      pooled: await startServer('joma', chain.throughBouncer(database), {
        rateLimitPerSecond: 1_000_000,
        databaseDirectUrl: scratch.url,
        dbPreparedStatements: chain.preparedStatements,
      }),
    };
    servers.push(...Object.values(byName));
    // Every server serves the first server's app (its keys are in the database).
    const keys = byName.direct;
    const auth = { 'x-api-key': keys.apiKey, 'x-api-secret': keys.apiSecret };
    const createPayment: Route = {
      method: 'POST',
      path: '/api/v1/payments',
      headers: auth,
      body: '{"amountMinor":150000,"customerReference":"bench-{i%50}"}',
      expectStatus: 201,
    };
    const readPayment: Route = {
      method: 'GET',
      path: '/api/v1/payments/{1+i%500}',
      headers: auth,
      expectStatus: 200,
    };
    const helperPids = {
      haproxy: chain.haproxy.child.pid!,
      pgbouncer: chain.bouncer.child.pid!,
    };

    const round1 = async (name: Name, route: Route, requests: number) => {
      const s = byName[name];
      const before = {
        joma: cpuMs(s.pid),
        h: cpuMs(helperPids.haproxy),
        b: cpuMs(helperPids.pgbouncer),
      };
      const r = await runLoad({ ...route, port: s.port, requests, concurrency: CONCURRENCY });
      if (r.errors > 0)
        throw new Error(
          `${name} ${route.method} ${route.path}: ${r.errors} unexpected answers ${JSON.stringify(r.byStatus)}`,
        );
      const per = (a: number | null, b: number | null) =>
        a === null || b === null ? null : Math.round(((b - a) * 1000) / r.requests);
      return {
        requestsPerSecond: r.requestsPerSecond,
        p50Ms: r.p50Ms,
        p99Ms: r.p99Ms,
        jomaCpuUs: per(before.joma, cpuMs(s.pid)),
        haproxyCpuUs: per(before.h, cpuMs(helperPids.haproxy)),
        pgbouncerCpuUs: per(before.b, cpuMs(helperPids.pgbouncer)),
      };
    };
    type Run = Awaited<ReturnType<typeof round1>>;

    log(`P1/P2: ${REQUESTS} requests per round, concurrency ${CONCURRENCY}, ${ROUNDS} rounds`);
    // Warm each server's code paths and the table (and payments to read).
    for (const name of NAMES) await round1(name, createPayment, 1000);

    const measure = async (label: string, route: Route) => {
      const runs: Record<Name, Run[]> = { direct: [], 'direct-unnamed': [], pooled: [] };
      const ticks = hostTicks();
      for (let r = 0; r < ROUNDS; r++) {
        // A different first server each round: no one always follows the same neighbour.
        const order = NAMES.map((_, i) => NAMES[(i + r) % NAMES.length]);
        for (const name of order) runs[name].push(await round1(name, route, REQUESTS));
      }
      const steal = stealPercent(ticks, hostTicks());
      const summary = (xs: Run[]) => ({
        requestsPerSecond: median(xs.map((x) => x.requestsPerSecond)),
        p50Ms: median(xs.map((x) => x.p50Ms)),
        p99Ms: median(xs.map((x) => x.p99Ms)),
        jomaCpuUs: xs.some((x) => x.jomaCpuUs === null)
          ? null
          : median(xs.map((x) => x.jomaCpuUs!)),
        haproxyCpuUs: median(xs.map((x) => x.haproxyCpuUs ?? 0)),
        pgbouncerCpuUs: median(xs.map((x) => x.pgbouncerCpuUs ?? 0)),
      });
      const ratio = (a: Name, b: Name) => {
        const byRound = runs[a].map((x, i) => x.requestsPerSecond / runs[b][i].requestsPerSecond);
        return {
          throughput: round(median(byRound)),
          throughputByRound: byRound.map(round),
          p99: round(median(runs[a].map((x, i) => x.p99Ms / runs[b][i].p99Ms))),
        };
      };
      const result = {
        direct: summary(runs.direct),
        directUnnamed: summary(runs['direct-unnamed']),
        pooled: summary(runs.pooled),
        ratio: {
          pooledOverDirect: ratio('pooled', 'direct'),
          pooledOverDirectUnnamed: ratio('pooled', 'direct-unnamed'),
          directUnnamedOverDirect: ratio('direct-unnamed', 'direct'),
        },
        hostStealPercent: steal,
      };
      log(`${label}: ${JSON.stringify(result)}`);
      return result;
    };
    const p1 = await measure('P1 POST /api/v1/payments', createPayment);
    const p2 = await measure('P2 GET /api/v1/payments/{id}', readPayment);

    // One round trip three ways, Joma's servers idle.
    const paths = {
      direct: scratch.url,
      haproxy: chain.throughHaproxy(database),
      haproxyPgbouncer: chain.throughBouncer(database),
    };
    const clients = Object.fromEntries(
      await Promise.all(
        Object.entries(paths).map(async ([k, url]) => {
          const c = new Client({ connectionString: url });
          await c.connect();
          return [k, c] as const;
        }),
      ),
    ) as Record<keyof typeof paths, Client>;
    const samples: Record<string, number[]> = { direct: [], haproxy: [], haproxyPgbouncer: [] };
    try {
      for (const c of Object.values(clients)) await pingBlock(c, 200); // warm
      for (let done = 0; done < PINGS; done += 200)
        for (const k of Object.keys(paths) as (keyof typeof paths)[])
          samples[k].push(...(await pingBlock(clients[k], 200)));
    } finally {
      for (const c of Object.values(clients)) await c.end().catch(() => undefined);
    }
    const roundTrip = Object.fromEntries(
      Object.entries(samples).map(([k, xs]) => [
        k,
        { count: xs.length, p50Us: Math.round(median(xs)), p99Us: Math.round(p99(xs)) },
      ]),
    );
    log(`SELECT 1 round trip (us): ${JSON.stringify(roundTrip)}`);

    const report = {
      at: new Date().toISOString(),
      host: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      database: databaseLabel(),
      pgbouncer: {
        version: chain.version,
        poolMode: 'transaction',
        namedPreparedStatements: chain.preparedStatements,
      },
      method: { requests: REQUESTS, concurrency: CONCURRENCY, rounds: ROUNDS, pings: PINGS },
      'P1 POST /api/v1/payments': p1,
      'P2 GET /api/v1/payments/{id}': p2,
      selectOneRoundTrip: roundTrip,
    };
    writeFileSync(join(__dirname, 'report-pooler.json'), `${JSON.stringify(report, null, 2)}\n`);
    log('written to bench/report-pooler.json');
  } finally {
    for (const s of servers) await s.close().catch(() => undefined);
    if (chain) {
      await stopHelper(chain.bouncer);
      await stopHelper(chain.haproxy);
    }
    rmSync(dir, { recursive: true, force: true });
    await scratch.drop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
