/**
 * HTTP API benchmark (`npm run bench:api`; issue #12's P1, P2 and load shedding).
 *
 * Joma runs in a process of its own with its whole stack on (request id,
 * JSON request log at `info`, metrics, body limits, app-key guard, rate
 * limiter, idempotency and envelope interceptors, validation, outbox), and
 * beside it, in another process, the NestJS skeleton of bench/skeleton.ts
 * doing the same SQL. A closed-loop load generator (keep-alive, fixed
 * concurrency) drives them in alternating rounds, so drift on a shared
 * machine hits both alike; each figure is the median of BENCH_API_ROUNDS
 * rounds, and the ratio is the median of the rounds' ratios.
 *
 * Then: the limiter's own cost (Joma with the limiter on but never
 * reached, against Joma with RATE_LIMIT_PER_SECOND=0), invoice creation for
 * one app (gapless numbering), and load shedding (an open-loop generator at
 * twice the measured capacity against a limit of half of it).
 *
 * Writes bench/report-api.json (gitignored). Bounded: BENCH_API_REQUESTS
 * (3000) per round, BENCH_API_CONCURRENCY (32), BENCH_API_ROUNDS (5).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { LoadResult, LoadSpec, runLoad } from './load';
import { databaseLabel, scratchDatabase } from './scratch-database';
import { RunningServer, startServer } from './server-process';

const REQUESTS = Number(process.env.BENCH_API_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_API_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 5);
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (n: number) => Math.round(n * 100) / 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

type Route = Omit<LoadSpec, 'port' | 'requests' | 'concurrency'>;

const summary = (runs: LoadResult[]) => ({
  requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
  p50Ms: median(runs.map((r) => r.p50Ms)),
  p99Ms: median(runs.map((r) => r.p99Ms)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
});

async function closedLoop(server: RunningServer, route: Route, requests = REQUESTS) {
  const result = await runLoad({ ...route, port: server.port, requests, concurrency: CONCURRENCY });
  if (result.errors > 0)
    throw new Error(
      `${route.method} ${route.path}: ${result.errors} unexpected answers ${JSON.stringify(result.byStatus)}`,
    );
  return result;
}

/** `ROUNDS` alternating rounds of one route on two servers; medians and the median ratio. */
async function compare(
  name: string,
  a: RunningServer,
  b: RunningServer,
  route: (s: RunningServer) => Route,
) {
  const runsA: LoadResult[] = [];
  const runsB: LoadResult[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    runsA.push(await closedLoop(a, route(a)));
    runsB.push(await closedLoop(b, route(b)));
  }
  const result = {
    joma: summary(runsA),
    baseline: summary(runsB),
    ratio: {
      throughput: round(
        median(runsA.map((x, i) => x.requestsPerSecond / runsB[i].requestsPerSecond)),
      ),
      p99: round(median(runsA.map((x, i) => x.p99Ms / runsB[i].p99Ms))),
    },
  };
  log(`${name}: ${JSON.stringify(result)}`);
  return result;
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase('api');
  const servers: RunningServer[] = [];
  const start = async (...args: Parameters<typeof startServer>) => {
    const s = await startServer(...args);
    servers.push(s);
    return s;
  };
  try {
    // The limiter on but out of reach: its cost is in every figure.
    const joma = await start('joma', scratch.url, { rateLimitPerSecond: 1_000_000 });
    const skeleton = await start('skeleton', scratch.url, { appId: joma.appId });
    const auth = (s: RunningServer) => ({ 'x-api-key': s.apiKey, 'x-api-secret': s.apiSecret });
    const createPayment = (s: RunningServer): Route => ({
      method: 'POST',
      path: '/api/v1/payments',
      headers: auth(s),
      body: '{"amountMinor":150000,"customerReference":"bench-{i%50}"}',
      expectStatus: 201,
    });
    const readPayment = (s: RunningServer): Route => ({
      method: 'GET',
      path: '/api/v1/payments/{1+i%500}',
      headers: auth(s),
      expectStatus: 200,
    });
    log(`API: ${REQUESTS} requests per round, concurrency ${CONCURRENCY}, ${ROUNDS} rounds`);
    // Warm both servers' code paths and the tables (and payments to read).
    for (const s of [joma, skeleton]) await closedLoop(s, createPayment(joma), 1000);

    const health = await closedLoop(joma, { method: 'GET', path: '/healthz', expectStatus: 200 });
    log(`GET /healthz: ${JSON.stringify(health)}`);
    const p1 = await compare('P1 POST /api/v1/payments', joma, skeleton, () => createPayment(joma));
    const p2 = await compare('P2 GET /api/v1/payments/{id}', joma, skeleton, () =>
      readPayment(joma),
    );

    // The limiter's own cost: the same Joma with RATE_LIMIT_PER_SECOND=0, on the cheapest route.
    const unlimited = await start('joma', scratch.url, { rateLimitPerSecond: 0 });
    await closedLoop(unlimited, readPayment(unlimited), 1000);
    const limiter = await compare(
      'Limiter on vs off, GET /api/v1/payments/{id}',
      joma,
      unlimited,
      readPayment,
    );
    await unlimited.close();
    servers.splice(servers.indexOf(unlimited), 1);

    // Invoice creation for one app: each takes the app's gapless number.
    const run = randomBytes(3).toString('hex');
    const invoiceRuns: LoadResult[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      invoiceRuns.push(
        await closedLoop(joma, {
          method: 'POST',
          path: '/api/v1/invoices',
          headers: { ...auth(joma), 'idempotency-key': `bench-${run}-${r}-{i}` },
          body: JSON.stringify({
            customerReference: 'bench-{i%50}',
            lineItems: [
              { description: 'Item A', qty: 2, unitAmountMinor: 45000 },
              { description: 'Item B', qty: 1, unitAmountMinor: 6000 },
            ],
          }),
          expectStatus: 201,
        }),
      );
    }
    const invoices = summary(invoiceRuns);
    log(`POST /api/v1/invoices, one app (Idempotency-Key): ${JSON.stringify(invoices)}`);

    // Load shedding: limit at half the measured capacity, offered twice the capacity.
    const capacity = p2.joma.requestsPerSecond;
    const limit = Math.floor(capacity / 2);
    const shedding = await start('joma', scratch.url, { rateLimitPerSecond: limit });
    const seconds = 4;
    await closedLoop(shedding, readPayment(joma), 500);
    await new Promise((r) => setTimeout(r, 2500)); // let the bucket refill
    const unloaded = await runLoad({
      ...readPayment(joma),
      port: shedding.port,
      concurrency: 256,
      ratePerSecond: Math.floor(limit * 0.9),
      requests: Math.floor(limit * 0.9 * seconds),
    });
    await new Promise((r) => setTimeout(r, 2500));
    const overloaded = await runLoad({
      ...readPayment(joma),
      port: shedding.port,
      concurrency: 256,
      ratePerSecond: 2 * capacity,
      requests: 2 * capacity * seconds,
    });
    const accepted = overloaded.byStatus['200'];
    const rejected = overloaded.byStatus['429'];
    const shed = {
      capacityPerSecond: capacity,
      limitPerSecond: limit,
      offeredPerSecond: 2 * capacity,
      unloaded: unloaded.byStatus['200'],
      accepted,
      rejected,
      acceptedP99OverUnloadedP99: round(accepted.p99Ms / unloaded.byStatus['200'].p99Ms),
      timeouts: overloaded.timeouts,
      otherAnswers: overloaded.requests - (accepted?.count ?? 0) - (rejected?.count ?? 0),
      maxRetryAfterS: overloaded.maxRetryAfterS,
    };
    log(`Load shedding: ${JSON.stringify(shed)}`);

    const report = {
      generatedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
      database: databaseLabel(),
      settings: {
        requestsPerRound: REQUESTS,
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
        keepAlive: true,
        servers: 'one process each; Joma logs at info',
      },
      scenarios: {
        'GET /healthz': health,
        'P1 POST /api/v1/payments': p1,
        'P2 GET /api/v1/payments/{id}': p2,
        'Limiter cost (GET /api/v1/payments/{id}, on vs off)': {
          ...limiter,
          costPercent: round((1 - limiter.ratio.throughput) * 100),
        },
        'POST /api/v1/invoices, one app': invoices,
        'Load shedding (GET /api/v1/payments/{id})': shed,
      },
    };
    writeFileSync(join(__dirname, 'report-api.json'), `${JSON.stringify(report, null, 2)}\n`);
    log('written to bench/report-api.json');
  } finally {
    for (const s of servers) await s.close();
    await scratch.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
