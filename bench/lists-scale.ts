/**
 * Lists at scale (`npm run bench:lists-scale`, not part of `npm run bench`;
 * issue 59 item 5): flat to 10M rows per partition, and 100 concurrent list
 * readers while P1 runs, with the reads on a streaming standby and on the
 * primary, in one run.
 *
 * The bench starts its own PostgreSQL pair (test/support/pg-pair.ts: a
 * primary and a streaming hot standby on loopback ports in a scratch
 * directory, the statement log off; both stopped and the directory removed
 * at the end, always). On the primary, in a migrated database:
 *
 * 1. Flatness. One app's TEST partition of invoices, payments and events
 *    (a second app holds a tenth as many) grows through BENCH_LISTS_SIZES up
 *    to BENCH_LISTS_MAX rows per table, seeded set-based (INSERT ... SELECT
 *    generate_series, 1M rows a statement, into the tables as the migrations
 *    made them, indexes and counter triggers included; VACUUM ANALYZE after
 *    each size). At each size a Joma server (its own process, reads on the
 *    primary) answers BENCH_LISTS_SAMPLES requests one at a time of every
 *    list route: the first page, the deepest page the offset cap allows
 *    (page 499 of 20) and a cursor page (the deepest page's nextCursor: a
 *    keyset page costs the same at any depth). Every answer is checked (200,
 *    20 rows, exact totals). Seeding stops at the end of a 1M batch once
 *    BENCH_LISTS_SEED_BUDGET_S have passed; the last size is then the one
 *    reached, and measured as the others.
 * 2. The standby is made (pg_basebackup of the seeded primary) and started.
 * 3. Readers under P1, BENCH_LISTS_ROUNDS times in turn: a fresh Joma server
 *    with DATABASE_READ_URL at the standby (`replica`) and one without
 *    (`primary`). Two phases of BENCH_LISTS_PHASE_S seconds each (BENCH_LISTS_PACINGS):
 *    `paced`, 100 readers (10 per list route and page kind: five routes,
 *    first and cursor pages) each asking a page every BENCH_LISTS_THINK_MS
 *    on average (open loop: 100 pages a second at 1 s) while P1 (POST
 *    /api/v1/payments into the same partition) arrives at BENCH_LISTS_P1_RATE
 *    a second, the latency a reader sees (the goal); and `closed`, the same
 *    readers and P1 (BENCH_LISTS_P1_CONCURRENCY connections) asking again
 *    the moment they are answered, the capacity. The readers' p50/p95/p99
 *    (pooled), P1's throughput and latency, where the reads ran
 *    (joma_db_replica_reads_total), the host's steal. BENCH_LISTS_READ_POOL
 *    sets the replica server's DB_READ_POOL_SIZE.
 *
 * Writes bench/report-lists-scale.json (gitignored).
 */
import 'reflect-metadata';

import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { Client } from 'pg';

import { freePort } from '../src/common/net/free-port';
import { runMigrations } from '../src/database/migrate';
import { type PgPair, startPgPair } from '../test/support/pg-pair';
import { type LoadResult, runLoad } from './load';
import { hostTicks, type RunningServer, startServer, stealPercent } from './server-process';
import { percentile, round } from './stats';

const MAX = Number(process.env.BENCH_LISTS_MAX ?? 10_000_000);
const SIZES = (process.env.BENCH_LISTS_SIZES ?? '10000,100000,1000000,3000000,10000000')
  .split(',')
  .map(Number)
  .filter((n) => n <= MAX);
const SEED_BUDGET_S = Number(process.env.BENCH_LISTS_SEED_BUDGET_S ?? 1800);
const SAMPLES = Number(process.env.BENCH_LISTS_SAMPLES ?? 40);
const READERS = 100;
const P1_CONCURRENCY = Number(process.env.BENCH_LISTS_P1_CONCURRENCY ?? 16);
const PHASE_S = Number(process.env.BENCH_LISTS_PHASE_S ?? 20);
/** Paced readers: each asks for a page, then waits this long on average (an arrival rate of READERS / THINK per second). */
const THINK_MS = Number(process.env.BENCH_LISTS_THINK_MS ?? 1000);
/** Paced P1: payments created per second, open loop. */
const P1_RATE = Number(process.env.BENCH_LISTS_P1_RATE ?? 100);
const ROUNDS = Number(process.env.BENCH_LISTS_ROUNDS ?? 2);
/** Which reader phases run at each round (BENCH_LISTS_PACINGS, default both). */
/** DB_READ_POOL_SIZE of the replica round's server (BENCH_LISTS_READ_POOL; unset: Joma's default). */
const READ_POOL = process.env.BENCH_LISTS_READ_POOL
  ? Number(process.env.BENCH_LISTS_READ_POOL)
  : undefined;
const PACINGS = (process.env.BENCH_LISTS_PACINGS ?? 'paced,closed').split(',') as Pacing[];
const BATCH = 1_000_000;
const PAGE_SIZE = 20;
const DEEP_PAGE = 10_000 / PAGE_SIZE - 1;
const ADMIN = { email: 'bench-admin@joma.test', password: 'bench-admin-password-1' };
const DATABASE = 'joma_bench_lists_scale';
/** Both servers: no statement log; room for the seeding's WAL; a cache of a small production box. */
const PG_SETTINGS = [
  "log_statement = 'none'",
  'max_connections = 200',
  'shared_buffers = 512MB',
  'max_wal_size = 16GB',
  'checkpoint_timeout = 30min',
  'maintenance_work_mem = 256MB',
];
const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
const ms1 = (n: number) => Math.round(n * 10) / 10;

interface Answer {
  status: number;
  body: { data: unknown[]; pagination: { totalElements: number; nextCursor?: string } };
}

function call(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
) {
  return new Promise<Answer>((ok, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: body
          ? { ...headers, 'content-type': 'application/json', 'content-length': body.length }
          : headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          ok({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

function check(route: string, a: Answer, total: number | null): void {
  if (a.status !== 200) throw new Error(`${route}: ${a.status} ${JSON.stringify(a.body)}`);
  if (a.body.data.length !== PAGE_SIZE)
    throw new Error(`${route}: ${a.body.data.length} rows, expected ${PAGE_SIZE}`);
  if (total !== null && a.body.pagination.totalElements !== total)
    throw new Error(
      `${route}: totalElements ${a.body.pagination.totalElements}, expected ${total}`,
    );
}

/**
 * Grows the TEST partitions of `appId` from `from` to `to` rows per table (and
 * `other`'s to a tenth of that), 1M rows a statement; stops at a batch's end
 * once `deadline` (performance.now()) has passed. Returns the size reached.
 */
async function seed(
  db: Client,
  ids: { appId: number; other: number; customer: number; otherCustomer: number },
  from: number,
  to: number,
  deadline: number,
) {
  const t0 = performance.now();
  let reached = from;
  while (reached < to && performance.now() < deadline) {
    const next = Math.min(to, reached + BATCH);
    for (const [app, customer, lo, hi] of [
      [ids.appId, ids.customer, reached, next],
      [ids.other, ids.otherCustomer, Math.floor(reached / 10), Math.floor(next / 10)],
    ]) {
      // Rows spread back from now, 3 s apart (10M: ~1 year), a little out of id order.
      const at = `now() - ((${MAX} - g) * interval '3 second') - (g % 7) * interval '1 second'`;
      await db.query(
        `INSERT INTO invoices (app_id, mode, number, status, customer_id, total_minor, amount_paid_minor, due_date, issued_at, pay_token, created_at, updated_at)
         SELECT $1::bigint, 'TEST', 'INV-' || lpad(g::text, 8, '0'), 'ISSUED', $2,
                1000 + g % 9000, 0, (${at})::date + 7, ${at}, 'tok_' || $1::text || '_' || g, ${at}, ${at}
           FROM generate_series($3::int + 1, $4::int) g`,
        [app, customer, lo, hi],
      );
      await db.query(
        `INSERT INTO payments (app_id, mode, reference, status, amount_minor, gateway, customer_id, expires_at, created_at, updated_at)
         SELECT $1::bigint, 'TEST', 'pay_' || $1::text || '_' || g || '_bench', (ARRAY['PENDING','FAILED','CANCELLED'])[1 + g % 3],
                1000 + g % 9000, 'sandbox', $2, ${at} + interval '1 hour', ${at}, ${at}
           FROM generate_series($3::int + 1, $4::int) g`,
        [app, customer, lo, hi],
      );
      await db.query(
        `INSERT INTO events (app_id, mode, type, data, created_at)
         SELECT $1, 'TEST', 'payment.succeeded', jsonb_build_object('n', g), ${at}
           FROM generate_series($2::int + 1, $3::int) g`,
        [app, lo, hi],
      );
      await db.query(
        `INSERT INTO invoice_counters (app_id, mode, last_number) VALUES ($1, 'TEST', $2)
         ON CONFLICT (app_id, mode) DO UPDATE SET last_number = EXCLUDED.last_number`,
        [app, hi],
      );
    }
    reached = next;
    log(`  ${reached} rows per table (${Math.round((performance.now() - t0) / 1000)} s)`);
  }
  const insertMs = performance.now() - t0;
  await db.query('VACUUM ANALYZE invoices, payments, events');
  return { reached, insertMs, totalMs: performance.now() - t0 };
}

async function timed(n: number, go: () => Promise<Answer>, verify: (a: Answer) => void) {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    const a = await go();
    ms.push(performance.now() - s);
    verify(a);
  }
  ms.sort((a, b) => a - b);
  return { p50Ms: ms1(percentile(ms, 50)), p95Ms: ms1(percentile(ms, 95)) };
}

async function adminToken(agent: Agent, port: number): Promise<string> {
  const a = await call(agent, port, 'POST', '/api/v1/auth/login', {}, JSON.stringify(ADMIN));
  const token = (a.body as unknown as { data?: { token?: string } }).data?.token;
  if (!token) throw new Error(`admin login: ${a.status} ${JSON.stringify(a.body)}`);
  return token;
}

interface Route {
  name: string;
  path: string;
  headers: Record<string, string>;
  /** Rows the list holds for `size` rows per partition. */
  total: (size: number) => number;
}

function routesFor(
  appId: number,
  keys: { apiKey: string; apiSecret: string },
  token: string,
): Route[] {
  const appAuth = { 'x-api-key': keys.apiKey, 'x-api-secret': keys.apiSecret };
  const adminAuth = { authorization: `Bearer ${token}` };
  const own = (n: number) => n;
  return [
    { name: 'GET /api/v1/invoices', path: '/api/v1/invoices', headers: appAuth, total: own },
    { name: 'GET /api/v1/payments', path: '/api/v1/payments', headers: appAuth, total: own },
    { name: 'GET /api/v1/events', path: '/api/v1/events', headers: appAuth, total: own },
    {
      name: 'GET /api/v1/admin/invoices',
      path: `/api/v1/admin/invoices?applicationId=${appId}&mode=TEST`,
      headers: adminAuth,
      total: own,
    },
    {
      name: 'GET /api/v1/admin/invoices (all apps)',
      path: '/api/v1/admin/invoices',
      headers: adminAuth,
      total: (n) => n + Math.floor(n / 10),
    },
  ];
}

const withSize = (path: string, q: string) =>
  `${path}${path.includes('?') ? '&' : '?'}size=${PAGE_SIZE}${q}`;

/** First, deepest (offset cap) and cursor pages of every route, one request at a time. */
async function flatness(server: RunningServer, appId: number, size: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const routes = routesFor(appId, server, await adminToken(agent, server.port));
    const out: Record<string, unknown> = {};
    for (const r of routes) {
      const go = (q: string) => () =>
        call(agent, server.port, 'GET', withSize(r.path, q), r.headers);
      const verify = (a: Answer) => check(r.name, a, r.total(size));
      await go('')(); // warm
      const first = await timed(SAMPLES, go(''), verify);
      const deepest = Math.min(DEEP_PAGE, Math.floor(size / PAGE_SIZE) - 1);
      const deep = await timed(SAMPLES, go(`&page=${deepest}`), verify);
      const cursorAt = (await go(`&page=${deepest - 1}`)()).body.pagination.nextCursor!;
      const cursor = await timed(SAMPLES, go(`&cursor=${encodeURIComponent(cursorAt)}`), verify);
      out[r.name] = { firstPage: first, deepPage: { page: deepest, ...deep }, cursorPage: cursor };
      log(`${size} ${r.name}: ${JSON.stringify(out[r.name])}`);
    }
    return out;
  } finally {
    agent.destroy();
  }
}

/** joma_db_replica_reads_total by served_by, from the server's /metrics listener. */
async function servedBy(metricsPort: number): Promise<Record<string, number>> {
  const text = await new Promise<string>((ok, fail) => {
    request({ host: '127.0.0.1', port: metricsPort, path: '/metrics' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok(Buffer.concat(chunks).toString()));
    })
      .on('error', fail)
      .end();
  });
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^joma_db_replica_reads_total\{served_by="([^"]+)"\} (\S+)$/gm))
    out[m[1]] = Number(m[2]);
  return out;
}

/**
 * How the readers and P1 ask. `closed`: every reader and P1 connection asks
 * again the moment it is answered (no think time), which measures capacity:
 * the latency is then the queue (Little's law). `paced`: an arrival rate,
 * open loop, the readers READERS / THINK_MS a second in all and P1 P1_RATE a
 * second, which measures the latency a reader sees at that load (the goal).
 */
type Pacing = 'closed' | 'paced';

/** 100 readers (10 per route and page kind) and P1 at once, for `seconds`. */
async function readersUnderP1(
  server: RunningServer,
  token: string,
  appKeys: { appId: number; apiKey: string; apiSecret: string },
  seconds: number,
  pacing: Pacing,
  size: number,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const routes = routesFor(appKeys.appId, appKeys, token);
  const specs: { name: string; path: string; headers: Record<string, string> }[] = [];
  for (const r of routes) {
    // The page before the deepest one the size allows has a next page, so a cursor.
    const before = Math.min(DEEP_PAGE, Math.floor(size / PAGE_SIZE) - 1) - 1;
    const cursor = (
      await call(agent, server.port, 'GET', withSize(r.path, `&page=${before}`), r.headers)
    ).body.pagination.nextCursor;
    if (!cursor) throw new Error(`${r.name}: no cursor after page ${before}`);
    specs.push({ name: `${r.name} first`, path: withSize(r.path, ''), headers: r.headers });
    specs.push({
      name: `${r.name} cursor`,
      path: withSize(r.path, `&cursor=${encodeURIComponent(cursor)}`),
      headers: r.headers,
    });
  }
  agent.destroy();
  const per = READERS / specs.length;
  // Open loop: `requests` at `ratePerSecond` (the run lasts `seconds`), at most `concurrency` in flight.
  // Each generator's sends are spread evenly; the generators' phases are spread over
  // one interval, so the readers do not all ask in the same millisecond.
  const pace = (ratePerSecond: number, phase = 0) =>
    pacing === 'paced'
      ? {
          ratePerSecond,
          requests: Math.round(ratePerSecond * seconds),
          phaseMs: (phase * 1000) / ratePerSecond,
        }
      : { requests: 10_000_000, seconds };
  const readers = specs.map((s, i) =>
    runLoad({
      port: server.port,
      method: 'GET',
      path: s.path,
      headers: s.headers,
      expectStatus: 200,
      concurrency: per,
      ...pace((per * 1000) / THINK_MS, i / specs.length),
      keepSamples: true,
    }),
  );
  const p1 = runLoad({
    port: server.port,
    method: 'POST',
    path: '/api/v1/payments',
    headers: { 'x-api-key': appKeys.apiKey, 'x-api-secret': appKeys.apiSecret },
    body: '{"amountMinor":150000,"customerReference":"bench-{i%50}"}',
    expectStatus: 201,
    concurrency: P1_CONCURRENCY,
    ...pace(P1_RATE),
  });
  const [byReader, p1Result] = await Promise.all([Promise.all(readers), p1]);
  return { specs, byReader, p1: p1Result };
}

function summariseReaders(specs: { name: string }[], results: LoadResult[]) {
  const all: number[] = [];
  let requests = 0;
  let errors = 0;
  let timeouts = 0;
  let seconds = 0;
  const byRoute: Record<string, unknown> = {};
  results.forEach((r, i) => {
    const ms = Object.values(r.samples!.all).flat();
    all.push(...ms);
    requests += r.requests;
    errors += r.errors;
    timeouts += r.timeouts;
    seconds = Math.max(seconds, r.seconds);
    const statuses = Object.fromEntries(Object.entries(r.byStatus).map(([k, v]) => [k, v.count]));
    byRoute[specs[i].name] = { requests: r.requests, p50Ms: r.p50Ms, p99Ms: r.p99Ms, statuses };
  });
  all.sort((a, b) => a - b);
  return {
    requests,
    requestsPerSecond: Math.round(requests / seconds),
    errors,
    timeouts,
    p50Ms: ms1(percentile(all, 50)),
    p95Ms: ms1(percentile(all, 95)),
    p99Ms: ms1(percentile(all, 99)),
    maxMs: ms1(all[all.length - 1] ?? NaN),
    byRoute,
  };
}

async function main(): Promise<void> {
  const servers: RunningServer[] = [];
  let pair: PgPair | undefined;
  let primaryUrl = '';
  let keys: RunningServer | undefined;
  let otherAppId = 0;
  const flat: Record<string, unknown> = {};
  const seeding: Record<string, unknown> = {};
  let reached = 0;
  const started = performance.now();
  try {
    pair = await startPgPair(async (serverUrl) => {
      const admin = new Client({ connectionString: `${serverUrl}/postgres` });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${DATABASE}`);
      await admin.end();
      primaryUrl = `${serverUrl}/${DATABASE}`;
      await runMigrations(primaryUrl);
      // Seeding and the flatness measures run before the standby exists:
      // pg_basebackup copies the seeded files, no replay of the seeding's WAL.
      const a = await startServer('joma', primaryUrl, { extraApps: 1, admin: ADMIN });
      servers.push(a);
      keys = a;
      otherAppId = a.more[0].appId;
      const db = new Client({ connectionString: primaryUrl });
      await db.connect();
      try {
        const customerOf = async (app: number) =>
          (
            await db.query<{ id: number }>(
              `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'TEST', 'bench') RETURNING id`,
              [app],
            )
          ).rows[0].id;
        const ids = {
          appId: a.appId,
          other: otherAppId,
          customer: await customerOf(a.appId),
          otherCustomer: await customerOf(otherAppId),
        };
        const deadline = performance.now() + SEED_BUDGET_S * 1000;
        for (const size of SIZES) {
          if (performance.now() >= deadline) break;
          const t = await seed(db, ids, reached, size, deadline);
          const [{ bytes }] = (
            await db.query<{ bytes: string }>(
              'SELECT pg_database_size(current_database()) AS bytes',
            )
          ).rows;
          reached = t.reached;
          seeding[String(reached)] = {
            insertS: round(t.insertMs / 1000),
            vacuumAnalyzeS: round((t.totalMs - t.insertMs) / 1000),
            databaseGB: round(Number(bytes) / 1e9),
          };
          log(`seeded ${reached} rows per table: ${JSON.stringify(seeding[String(reached)])}`);
          flat[String(reached)] = await flatness(a, a.appId, reached);
          if (reached < size)
            log(`stopped at ${reached}: BENCH_LISTS_SEED_BUDGET_S (${SEED_BUDGET_S}) spent`);
        }
      } finally {
        await db.end();
      }
      await a.close();
      servers.splice(servers.indexOf(a), 1);
    }, PG_SETTINGS);
    const t0 = performance.now();
    await pair.caughtUp(120_000);
    const standbyS = round((performance.now() - t0) / 1000);
    log(`standby up (${standbyS} s after the base backup)`);

    const phases: Record<string, unknown>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? ['replica', 'primary'] : ['primary', 'replica'];
      for (const where of order) {
        const metricsPort = await freePort();
        const s = await startServer('joma', primaryUrl, {
          admin: ADMIN,
          metricsPort,
          ...(where === 'replica'
            ? { databaseReadUrl: pair.standby.url(DATABASE), dbReadPoolSize: READ_POOL }
            : {}),
        });
        servers.push(s);
        try {
          const agent = new Agent({ keepAlive: true, maxSockets: 1 });
          const token = await adminToken(agent, s.port);
          agent.destroy();
          // Warm the new process (JIT, pools) before measuring.
          await readersUnderP1(s, token, keys!, 3, 'closed', reached);
          for (const pacing of PACINGS) {
            const before = await servedBy(metricsPort);
            const ticks = hostTicks();
            const load1 = loadavg()[0];
            const { specs, byReader, p1 } = await readersUnderP1(
              s,
              token,
              keys!,
              PHASE_S,
              pacing,
              reached,
            );
            const after = await servedBy(metricsPort);
            const reads: Record<string, number> = {};
            for (const k of Object.keys(after)) reads[k] = after[k] - (before[k] ?? 0);
            const phase = {
              round: r + 1,
              reads: where,
              pacing,
              readers: summariseReaders(specs, byReader),
              p1: {
                requestsPerSecond: p1.requestsPerSecond,
                p50Ms: p1.p50Ms,
                p99Ms: p1.p99Ms,
                errors: p1.errors,
                timeouts: p1.timeouts,
                maxSendLagMs: p1.maxSendLagMs,
              },
              readsServedBy: reads,
              stealPercent: stealPercent(ticks, hostTicks()),
              loadAverage1mAtStart: round(load1),
            };
            phases.push(phase);
            const { byRoute: _, ...brief } = phase.readers;
            log(
              `${where} ${pacing}: readers ${JSON.stringify(brief)} p1 ${JSON.stringify(phase.p1)} reads ${JSON.stringify(reads)}`,
            );
          }
        } finally {
          await s.close();
          servers.splice(servers.indexOf(s), 1);
        }
      }
    }

    const sizes = Object.keys(flat);
    const smallest = flat[sizes[0]] as Record<
      string,
      Record<string, { p50Ms: number; p95Ms: number }>
    >;
    const largest = flat[sizes[sizes.length - 1]] as typeof smallest;
    const ratios: Record<string, Record<string, number>> = {};
    for (const route of Object.keys(largest)) {
      ratios[route] = {};
      for (const kind of ['firstPage', 'deepPage', 'cursorPage'])
        for (const p of ['p50Ms', 'p95Ms'] as const)
          ratios[route][`${kind} ${p.slice(0, 3)}`] = round(
            largest[route][kind][p] / smallest[route][kind][p],
          );
    }
    const report = {
      generatedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
      database: 'a PostgreSQL pair of the bench (test/support/pg-pair.ts)',
      postgresSettings: PG_SETTINGS,
      settings: {
        sizes: SIZES,
        largestSeeded: reached,
        samples: SAMPLES,
        pageSize: PAGE_SIZE,
        readers: READERS,
        p1Concurrency: P1_CONCURRENCY,
        pacings: PACINGS,
        pacedThinkMs: THINK_MS,
        pacedReadersPerSecond: (READERS * 1000) / THINK_MS,
        pacedP1PerSecond: P1_RATE,
        phaseSeconds: PHASE_S,
        rounds: ROUNDS,
        serverPools: `DB_POOL_SIZE 10, DB_READ_POOL_SIZE ${READ_POOL ?? 'default'}, DB_READ_MAX_WAIT_MS 200`,
      },
      seeding,
      flatness: flat,
      largestOverSmallest: { sizes: [Number(sizes[0]), reached], ratios },
      standbyCatchUpSeconds: standbyS,
      readersUnderP1: phases,
      runSeconds: Math.round((performance.now() - started) / 1000),
    };
    writeFileSync(
      join(__dirname, 'report-lists-scale.json'),
      `${JSON.stringify(report, null, 2)}\n`,
    );
    log('written to bench/report-lists-scale.json');
  } finally {
    for (const s of servers) await s.close().catch(() => undefined);
    if (pair) await pair.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
