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
 * reached, against Joma with RATE_LIMIT_PER_SECOND=0, and the limiter's
 * code timed by itself against P2's CPU per request), invoice creation for
 * one app against eight apps (gapless numbering), and load shedding on the
 * write route (an open-loop generator at twice its measured capacity against
 * an app limit of a quarter of it), with the host's steal, each server's
 * event-loop delay and a host probe (bench/host-probe.ts: a timer, SELECT 1
 * and a one-row commit outside every server) beside each phase.
 *
 * Writes bench/report-api.json (gitignored). Bounded: BENCH_API_REQUESTS
 * (1000) per round, BENCH_API_CONCURRENCY (32), BENCH_API_ROUNDS (15); shedding: BENCH_SHED_TRIALS
 * (6) trials, each a reference of BENCH_SHED_REF_S (6) then a flood of BENCH_SHED_S (10) seconds
 * and its control (as long), after a warm-up flood of BENCH_SHED_WARM_S (20) seconds.
 * BENCH_API_ONLY=p1p2, adapters, shedding or invoices runs just those;
 * HTTP_ADAPTER=fastify runs Joma's servers on Fastify.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { SystemClock } from '../src/common/clock/clock';
import { RateLimiter } from '../src/common/rate-limit/rate-limiter';
import { AppConfig } from '../src/config/app-config';
import { pinnedLayout, pinThreads, SHED_PIN } from './cpu-pinning';
import { HostProbe, ProbeReading, startHostProbe } from './host-probe';
import { LoadResult, LoadSpec, runLoad } from './load';
import { databaseLabel, scratchDatabase } from './scratch-database';
import {
  AppKeys,
  benchHttpAdapter,
  cpuMs,
  hostTicks,
  LoopReading,
  RunningServer,
  startServer,
  stealPercent,
} from './server-process';
import { median, p99, round } from './stats';

// Many short rounds rather than a few long ones: on a shared
// host one round's ratio moves by +-15 % with the neighbours' load, and the
// median of 15 alternating rounds of 1,000 requests held steadier than the
// median of 5 rounds of 3,000 for the same number of requests, and no more
// favourable to Joma (bench/README.md, "Rounds").
const REQUESTS = Number(process.env.BENCH_API_REQUESTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_API_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 15);
/** Requests each limiter server answers before the on/off comparison (warmed alike). */
const LIMITER_WARM_REQUESTS = 9000;
/** Invoice creation, one app against eight: a few long rounds (eight apps' parts must not be tiny). */
const INVOICE_ROUNDS = Number(process.env.BENCH_INVOICE_ROUNDS ?? 5);
const INVOICE_REQUESTS = 3000;
const SHED_SECONDS = Number(process.env.BENCH_SHED_S ?? 10);
const SHED_REF_SECONDS = Number(process.env.BENCH_SHED_REF_S ?? 6);
const SHED_WARM_SECONDS = Number(process.env.BENCH_SHED_WARM_S ?? 20);
const SHED_BURST_S = 5;
const SHED_TRIALS = Number(process.env.BENCH_SHED_TRIALS ?? 6);
const log = (line: string) => process.stdout.write(`${line}\n`);

type Route = Omit<LoadSpec, 'port' | 'requests' | 'concurrency'>;

type Measured = LoadResult & { serverCpuUsPerRequest: number | null };

const summary = (runs: Measured[]) => ({
  requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
  p50Ms: median(runs.map((r) => r.p50Ms)),
  p99Ms: median(runs.map((r) => r.p99Ms)),
  serverCpuUsPerRequest: runs.some((r) => r.serverCpuUsPerRequest === null)
    ? null
    : median(runs.map((r) => r.serverCpuUsPerRequest!)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
});

/** A closed loop on one server, with the server's CPU time per request (null where /proc is absent). */
async function measuredLoop(
  server: RunningServer,
  route: Route,
  requests = REQUESTS,
): Promise<Measured> {
  const cpuBefore = cpuMs(server.pid);
  const result = await runLoad({ ...route, port: server.port, requests, concurrency: CONCURRENCY });
  const cpuAfter = cpuMs(server.pid);
  const serverCpuUsPerRequest =
    cpuBefore === null || cpuAfter === null
      ? null
      : Math.round(((cpuAfter - cpuBefore) * 1000) / result.requests);
  return { ...result, serverCpuUsPerRequest };
}

/** measuredLoop where every answer must be the route's expected one. */
async function closedLoop(
  server: RunningServer,
  route: Route,
  requests = REQUESTS,
): Promise<Measured> {
  const result = await measuredLoop(server, route, requests);
  if (result.errors > 0)
    throw new Error(
      `${route.method} ${route.path}: ${result.errors} unexpected answers ${JSON.stringify(result.byStatus)}`,
    );
  return result;
}

/** `rounds` alternating rounds of one route on two servers: each one's runs, in order. */
async function alternate(
  a: RunningServer,
  b: RunningServer,
  route: (s: RunningServer) => Route,
  rounds: number,
  requests: number,
): Promise<[Measured[], Measured[]]> {
  const runsA: Measured[] = [];
  const runsB: Measured[] = [];
  for (let r = 0; r < rounds; r++) {
    runsA.push(await closedLoop(a, route(a), requests));
    runsB.push(await closedLoop(b, route(b), requests));
  }
  return [runsA, runsB];
}

/** Medians of two servers' runs (round i of one beside round i of the other) and the median ratios. */
function compared(runsA: Measured[], runsB: Measured[]) {
  const throughputRatios = runsA.map((x, i) => x.requestsPerSecond / runsB[i].requestsPerSecond);
  return {
    joma: summary(runsA),
    baseline: summary(runsB),
    ratio: {
      throughput: round(median(throughputRatios)),
      // Each round's ratio, in order: how far the host moved during the comparison.
      throughputByRound: throughputRatios.map(round),
      p99: round(median(runsA.map((x, i) => x.p99Ms / runsB[i].p99Ms))),
      // The baseline's CPU per request over Joma's (1 = as lean; higher is better, like throughput).
      cpuPerRequest: runsA.some((x) => x.serverCpuUsPerRequest === null)
        ? null
        : round(
            median(runsA.map((x, i) => runsB[i].serverCpuUsPerRequest! / x.serverCpuUsPerRequest!)),
          ),
    },
  };
}

/** `ROUNDS` alternating rounds of one route on two servers; medians and the median ratio. */
async function compare(
  name: string,
  a: RunningServer,
  b: RunningServer,
  route: (s: RunningServer) => Route,
  rounds = ROUNDS,
  requests = REQUESTS,
) {
  const result = compared(...(await alternate(a, b, route, rounds, requests)));
  log(`${name}: ${JSON.stringify(result)}`);
  return result;
}

/**
 * The limiter's own cost, measured directly: Joma's RateLimiter (the code an
 * app call runs, `takeApp` on a bucket never empty) called in a hot loop in
 * this process, nanoseconds per call (median of 7 batches), and that as a
 * share of the CPU Joma's server spent per P2 request. The on/off comparison
 * of two servers says the same at full speed, within what two processes
 * differ by (a few per cent either way).
 */
function limiterOwnCost(p2ServerCpuUsPerRequest: number | null) {
  const limiter = new RateLimiter(
    new AppConfig({
      port: 0,
      databaseUrl: 'postgres://unused',
      jwtSecret: 'unused',
      encryptionKeyHex: '00',
      rateLimitPerSecond: 1_000_000,
    }),
    new SystemClock(),
  );
  const calls = 1_000_000;
  const batch = () => {
    const started = performance.now();
    for (let i = 0; i < calls; i++) limiter.takeApp(1 + (i & 7), 'TEST');
    return ((performance.now() - started) * 1e6) / calls;
  };
  batch(); // warm-up: compiled as it is in a server that has run a while
  const nsPerCall = round(median(Array.from({ length: 7 }, batch)));
  return {
    nsPerCall,
    shareOfP2ServerCpuPercent:
      p2ServerCpuUsPerRequest === null
        ? null
        : round((nsPerCall / 1000 / p2ServerCpuUsPerRequest) * 100 * 1000) / 1000,
  };
}

/**
 * Joma on Fastify against Joma on Express (HTTP_ADAPTER), everything else
 * alike: two fresh servers warmed alike, alternating rounds of P1 and P2.
 * `joma` is Fastify, `baseline` Express: a CPU ratio above 1 means Fastify
 * spends less per request.
 */
async function compareAdapters(
  start: (...args: Parameters<typeof startServer>) => Promise<RunningServer>,
  databaseUrl: string,
  write: Route,
  read: Route,
) {
  const fastify = await start('joma', databaseUrl, {
    rateLimitPerSecond: 1_000_000,
    httpAdapter: 'fastify',
  });
  const express = await start('joma', databaseUrl, {
    rateLimitPerSecond: 1_000_000,
    httpAdapter: 'express',
  });
  for (const s of [fastify, express]) await closedLoop(s, write, 1000);
  for (const s of [fastify, express]) await closedLoop(s, read, 1000);
  const result = {
    p1: await compare(
      'Fastify vs Express, P1 POST /api/v1/payments',
      fastify,
      express,
      () => write,
    ),
    p2: await compare(
      'Fastify vs Express, P2 GET /api/v1/payments/{id}',
      fastify,
      express,
      () => read,
    ),
  };
  return result;
}

/**
 * One app floods the service: twice the route's `capacity` offered for
 * SHED_SECONDS by an open-loop generator, while the app's limit is a quarter
 * of the capacity. Its full bucket (the burst of 2x the limit) is admitted
 * at the arrival rate, faster than the service can serve, so the first
 * moments queue; `steady` is everything started after SHED_BURST_S, once the
 * burst is spent. The reference is the same route at 90 % of the limit for
 * SHED_REF_SECONDS, just before each flood.
 * Reports accepted latency against that reference, how fast the excess got
 * its 429, and whether anything timed out.
 */
export const SHED_LIMIT_SHARE = 0.25;

/** An open loop: `ratePerSecond` arrivals for `seconds`, whether or not earlier ones answered. */
const openLoop = (
  server: RunningServer,
  route: Route,
  ratePerSecond: number,
  seconds: number,
  keepTimeline = false,
) =>
  runLoad({
    ...route,
    port: server.port,
    concurrency: 512,
    ratePerSecond,
    requests: Math.floor(ratePerSecond * seconds),
    timeoutMs: 10_000,
    steadyAfterMs: SHED_BURST_S * 1000,
    keepSamples: true,
    keepTimeline,
  });

/**
 * The accepted requests' p99 by the second of the flood they started in:
 * how long the burst's queue takes to clear, and that the steady window
 * (from SHED_BURST_S on) starts well after it has.
 */
function acceptedP99BySecond(timeline: [number, number, number | string][], expected: number) {
  const seconds: number[][] = [];
  for (const [startedMs, ms, status] of timeline) {
    if (status !== expected) continue;
    (seconds[Math.floor(startedMs / 1000)] ??= []).push(ms);
  }
  return Array.from(seconds, (xs = []) => (xs.length ? round(p99(xs)) : null));
}

/**
 * One trial: the reference at 90 % of the limit, then the flood, then the
 * control, each after the bucket refilled. The control offers the same load
 * to the host but not to one process: the server gets what it accepts in a
 * flood (97 % of the limit, so its bucket refuses nothing) while the excess
 * (twice the capacity less the limit) goes to `elsewhere`, a second server
 * of the same kind whose limit of 1 a second refuses it. Its steady p99 is
 * what the flood's load on the machine (the generator, the loopback, the
 * refusals' CPU) does to the accepted requests by itself; the flood's over
 * it is what answering the refusals on the same event loop adds.
 */
async function shedTrial(
  server: RunningServer,
  elsewhere: RunningServer,
  probe: HostProbe,
  route: Route,
  capacity: number,
  limit: number,
) {
  const expected = route.expectStatus;
  const refill = () => new Promise((r) => setTimeout(r, 3000));
  // The host's steal during each phase: time this VM's cores were given to
  // other guests. How late the server's event loop ran meanwhile (a stall
  // of the whole process), and what the host probe saw (a stall of the host
  // or the database, outside the server): in a flood and its control from
  // SHED_BURST_S on, the window their steady latencies come from.
  type Phase = 'reference' | 'flood' | 'control';
  const steal: Partial<Record<Phase, number | null>> = {};
  const loop: Partial<Record<Phase, LoopReading>> = {};
  const host: Partial<Record<Phase, ProbeReading>> = {};
  const witnesses = () => Promise.all([server.loopDelay(), probe.read()]);
  const observed = async <T>(name: Phase, phase: () => Promise<T>): Promise<T> => {
    const before = hostTicks();
    await witnesses();
    const steadyFrom =
      name === 'reference' ? null : setTimeout(() => void witnesses(), SHED_BURST_S * 1000);
    const result = await phase();
    if (steadyFrom) clearTimeout(steadyFrom);
    [loop[name], host[name]] = await witnesses();
    steal[name] = stealPercent(before, hostTicks());
    return result;
  };
  await refill();
  const reference = await observed('reference', () =>
    openLoop(server, route, Math.floor(limit * 0.9), SHED_REF_SECONDS),
  );
  const unloaded = reference.byStatus[expected];
  await refill();
  const overloaded = await observed('flood', () =>
    openLoop(server, route, 2 * capacity, SHED_SECONDS, true),
  );
  const accepted = overloaded.byStatus[expected];
  const rejected = overloaded.byStatus['429'];
  const steady = overloaded.steadyByStatus!;
  await refill();
  const [control] = await observed('control', () =>
    Promise.all([
      openLoop(server, route, Math.floor(limit * 0.97), SHED_SECONDS),
      openLoop(elsewhere, route, 2 * capacity - limit, SHED_SECONDS),
    ]),
  );
  const controlSteady = control.steadyByStatus![expected];
  return {
    unloaded,
    accepted,
    rejected,
    acceptedP99OverUnloadedP99: round(accepted.p99Ms / unloaded.p99Ms),
    acceptedP99BySecondMs: acceptedP99BySecond(overloaded.timeline!, expected),
    steady: {
      after: `${SHED_BURST_S} s`,
      accepted: steady[expected],
      rejected: steady['429'],
      acceptedP99OverUnloadedP99: round(steady[expected].p99Ms / unloaded.p99Ms),
    },
    control: {
      steadyAccepted: controlSteady,
      refusedByServer: control.byStatus['429']?.count ?? 0,
      floodP99OverControlP99: round(steady[expected].p99Ms / controlSteady.p99Ms),
    },
    generator: {
      cpuUsPerRequest: {
        unloaded: reference.generatorCpuUsPerRequest,
        flood: overloaded.generatorCpuUsPerRequest,
      },
      maxSendLagMs: { unloaded: reference.maxSendLagMs, flood: overloaded.maxSendLagMs },
    },
    samples: {
      unloaded: reference.samples!.all[expected] ?? [],
      steadyAccepted: overloaded.samples!.steady[expected] ?? [],
      controlSteadyAccepted: control.samples!.steady[expected] ?? [],
    },
    hostStealPercent: steal,
    eventLoopDelayMs: loop,
    hostProbeMs: host,
    timeouts: overloaded.timeouts,
    otherAnswers: overloaded.requests - (accepted?.count ?? 0) - (rejected?.count ?? 0),
    // What they were ('error': the connection failed or closed before an answer).
    otherByStatus: Object.fromEntries(
      Object.entries(overloaded.byStatus)
        .filter(([status]) => status !== String(expected) && status !== '429')
        .map(([status, latency]) => [status, latency.count]),
    ),
    maxRetryAfterS: overloaded.maxRetryAfterS,
  };
}

/**
 * What a refusal costs the server: a closed loop on the limited route, where
 * all but the bucket's refill are refused, with the server's CPU per answer
 * (an upper bound for a 429: the few accepted cost more), beside the same
 * loop on GET /healthz, the cheapest answer the service gives.
 */
async function refusalCost(server: RunningServer, route: Route, besideHealthz: boolean) {
  const measure = async (r: Route) => {
    const result = await measuredLoop(server, r);
    return {
      byStatus: Object.fromEntries(Object.entries(result.byStatus).map(([k, v]) => [k, v.count])),
      requestsPerSecond: result.requestsPerSecond,
      serverCpuUsPerRequest: result.serverCpuUsPerRequest,
    };
  };
  return {
    limitedRoute: await measure({ ...route, expectStatus: 429 }),
    healthz: besideHealthz
      ? await measure({ method: 'GET', path: '/healthz', expectStatus: 200 })
      : undefined,
  };
}

/**
 * SHED_TRIALS trials (default 6) on one server, each a reference window then
 * a flood, and the verdict is the p99 of every trial's steady accepted
 * requests pooled (~2,000-4,000 on a 2-core machine) over the p99 of every
 * trial's reference requests pooled. Short windows taken in turn, as the P1
 * and P2 rounds are, so the stalls of a shared machine fall on references
 * and floods alike: with three long trials a p99 was the 8th or so slowest
 * of ~800 requests, and whether a 10-second window met a stall of the host
 * decided it (single trials ranged from 0.3x to 15x, for the bare stack too;
 * bench/README.md, "Shedding trials"). Each trial's own ratio, and
 * their median, are reported beside it, and so is the control of each trial
 * (the same load on the machine, the excess refused by `elsewhere`): its
 * pooled p99 over the reference's, and the flood's over the control's.
 */
async function shedLoad(
  server: RunningServer,
  elsewhere: RunningServer,
  probe: HostProbe,
  route: Route,
  capacity: number,
  refusalsBesideHealthz = true,
) {
  const pinned = SHED_PIN ? pinFlood(server, elsewhere) : null;
  try {
    return {
      // CPUs by role, or "unpinned" (BENCH_SHED_PIN=0, or no taskset): where the scheduler puts them.
      cpus: pinned
        ? { serverUnderTest: pinned.server, generatorAndControlServer: pinned.rest }
        : 'unpinned',
      ...(await shedTrials(server, elsewhere, probe, route, capacity, refusalsBesideHealthz)),
    };
  } finally {
    if (pinned) for (const pid of [process.pid, server.pid]) pinThreads(pid, pinned.all);
  }
}

/**
 * The server under test on CPU 0, this process (the load generator's
 * threads) and the server answering the control's refusals on the others
 * (bench/cpu-pinning.ts); null when it cannot be done here (it is then
 * reported unpinned).
 */
function pinFlood(server: RunningServer, elsewhere: RunningServer) {
  const layout = pinnedLayout();
  if (!layout) return null;
  const done =
    pinThreads(server.pid, layout.server) &&
    pinThreads(elsewhere.pid, layout.rest) &&
    pinThreads(process.pid, layout.rest);
  if (!done) {
    for (const pid of [process.pid, server.pid, elsewhere.pid]) pinThreads(pid, layout.all);
    return null;
  }
  return layout;
}

async function shedTrials(
  server: RunningServer,
  elsewhere: RunningServer,
  probe: HostProbe,
  route: Route,
  capacity: number,
  refusalsBesideHealthz: boolean,
) {
  const limit = Math.floor(capacity * SHED_LIMIT_SHARE);
  // Warm the new process as a long-running server is: its code paths and heap
  // through a closed loop and a flood (SHED_WARM_SECONDS at 2x capacity, not
  // counted). A cold process's first flood was the worst trial in every run we
  // made; after a 5 s warm-up flood Joma's first trial still was (steady p99
  // 7-10x its reference, the later ones 1-2x), after 20 s it was like the rest
  // (bench/README.md, "Shedding trials").
  await runLoad({ ...route, port: server.port, requests: 300, concurrency: CONCURRENCY });
  await openLoop(server, route, 2 * capacity, SHED_WARM_SECONDS);
  await openLoop(elsewhere, route, 2 * capacity, SHED_WARM_SECONDS);
  const trials: Awaited<ReturnType<typeof shedTrial>>[] = [];
  for (let t = 0; t < SHED_TRIALS; t++) {
    const { samples, ...trial } = await shedTrial(server, elsewhere, probe, route, capacity, limit);
    log(`  shedding trial ${t + 1}: ${JSON.stringify(trial)}`);
    trials.push({ ...trial, samples });
  }
  const ratios = trials.map((t) => t.steady.acceptedP99OverUnloadedP99);
  const pooled = (pick: (t: (typeof trials)[number]) => number[]) => {
    const xs = trials.flatMap(pick);
    return { count: xs.length, p99Ms: p99(xs) };
  };
  const pooledUnloaded = pooled((t) => t.samples.unloaded);
  const pooledAccepted = pooled((t) => t.samples.steadyAccepted);
  const pooledControl = pooled((t) => t.samples.controlSteadyAccepted);
  const refusals = await refusalCost(server, route, refusalsBesideHealthz);
  log(`  refusal cost: ${JSON.stringify(refusals)}`);
  return {
    capacityPerSecond: capacity,
    limitPerSecond: limit,
    offeredPerSecond: round(2 * capacity),
    seconds: { reference: SHED_REF_SECONDS, flood: SHED_SECONDS, steadyAfter: SHED_BURST_S },
    steadyAcceptedP99OverUnloadedP99: {
      pooled: round(pooledAccepted.p99Ms / pooledUnloaded.p99Ms),
      medianTrial: median(ratios),
      trials: ratios,
    },
    // Beside each trial's ratio: the host's steal (%) in its reference and its flood,
    hostStealPercentByTrial: trials.map((t) => [
      t.hostStealPercent.reference,
      t.hostStealPercent.flood,
    ]),
    // and the server's event loop: its longest delay (ms) in the reference and the steady flood.
    eventLoopMaxMsByTrial: trials.map((t) => [
      t.eventLoopDelayMs.reference?.maxMs,
      t.eventLoopDelayMs.flood?.maxMs,
    ]),
    // and its scavenges (their count, their sum and the longest, ms) in the reference and
    // the steady flood: the pauses an accepted request may land in,
    scavengesByTrial: trials.map((t) =>
      [t.eventLoopDelayMs.reference, t.eventLoopDelayMs.flood].map((seen) =>
        seen ? [seen.gc.minor.count, seen.gc.minor.totalMs, seen.gc.minor.maxMs] : null,
      ),
    ),
    // and the host probe, outside the server: the longest wait (ms) of its timer, its SELECT 1
    // and its one-row commit, in the reference and the steady flood.
    hostProbeMaxMsByTrial: trials.map((t) =>
      [t.hostProbeMs.reference, t.hostProbeMs.flood].map((seen) =>
        seen ? [seen.timer.maxMs, seen.database.maxMs, seen.commit.maxMs] : null,
      ),
    ),
    pooled: {
      unloaded: pooledUnloaded,
      steadyAccepted: pooledAccepted,
      controlSteadyAccepted: pooledControl,
    },
    // The control (see shedTrial): the flood's load on the machine alone, and
    // what refusing on the same event loop adds to it.
    control: {
      controlP99OverUnloadedP99: round(pooledControl.p99Ms / pooledUnloaded.p99Ms),
      floodP99OverControlP99: {
        pooled: round(pooledAccepted.p99Ms / pooledControl.p99Ms),
        medianTrial: median(trials.map((t) => t.control.floodP99OverControlP99)),
      },
    },
    wholeRunAcceptedP99OverUnloadedP99: trials.map((t) => t.acceptedP99OverUnloadedP99),
    rejectedSteadyP50Ms: median(trials.map((t) => t.steady.rejected?.p50Ms ?? NaN)),
    timeouts: trials.reduce((n, t) => n + t.timeouts, 0),
    otherAnswers: trials.reduce((n, t) => n + t.otherAnswers, 0),
    maxRetryAfterS: Math.max(...trials.map((t) => t.maxRetryAfterS ?? 0)),
    refusals,
    trials: trials.map(({ samples: _samples, ...t }) => t),
  };
}

/**
 * Invoice creation: one app (every create takes that app's gapless number)
 * against eight apps (eight counters) at the same total concurrency, in
 * alternating rounds. Equal figures mean numbering does not cap one app.
 */
async function invoiceNumbering(joma: RunningServer) {
  const run = randomBytes(3).toString('hex');
  const createInvoice = (keys: AppKeys, tag: string): Route => ({
    method: 'POST',
    path: '/api/v1/invoices',
    headers: {
      'x-api-key': keys.apiKey,
      'x-api-secret': keys.apiSecret,
      'idempotency-key': `bench-${run}-${tag}-{i}`,
    },
    body: JSON.stringify({
      customerReference: 'bench-{i%50}',
      lineItems: [
        { description: 'Item A', qty: 2, unitAmountMinor: 45000 },
        { description: 'Item B', qty: 1, unitAmountMinor: 6000 },
      ],
    }),
    expectStatus: 201,
  });
  const oneApp: number[] = [];
  const eightApps: number[] = [];
  for (let r = 0; r < INVOICE_ROUNDS; r++) {
    oneApp.push(
      (await closedLoop(joma, createInvoice(joma, `one-${r}`), INVOICE_REQUESTS)).requestsPerSecond,
    );
    const started = performance.now();
    const parts = await Promise.all(
      joma.more.map((keys, k) =>
        runLoad({
          ...createInvoice(keys, `eight-${r}-${k}`),
          port: joma.port,
          requests: Math.floor(INVOICE_REQUESTS / joma.more.length),
          concurrency: CONCURRENCY / joma.more.length,
        }),
      ),
    );
    if (parts.some((p) => p.errors > 0)) throw new Error('invoice creation failed');
    const total = parts.reduce((n, p) => n + p.requests, 0);
    eightApps.push(round(total / ((performance.now() - started) / 1000)));
  }
  const invoices = {
    oneAppPerSecond: median(oneApp),
    eightAppsPerSecond: median(eightApps),
    ratio: round(median(oneApp) / median(eightApps)),
    // Each round's one-app and eight-app figures, in order.
    oneAppByRound: oneApp,
    eightAppsByRound: eightApps,
  };
  log(`POST /api/v1/invoices (Idempotency-Key), one app vs eight: ${JSON.stringify(invoices)}`);
  return invoices;
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
    const joma = await start('joma', scratch.url, {
      rateLimitPerSecond: 1_000_000,
      extraApps: 8,
    });
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

    /**
     * Load shedding on fresh servers limited to a quarter of `capacity` (Joma's
     * P1): Joma, then the skeleton with one token bucket in front of the same
     * route, under the same flood. The skeleton's figures say what this stack
     * on this machine allows (its refusals are as cheap as Express makes them).
     */
    const shedBoth = async (capacity: number) => {
      const rateLimitPerSecond = Math.floor(capacity * SHED_LIMIT_SHARE);
      const probe = await startHostProbe(scratch.url);
      try {
        const jomaShed = await shedLoad(
          await start('joma', scratch.url, { rateLimitPerSecond }),
          await start('joma', scratch.url, { rateLimitPerSecond: 1 }),
          probe,
          createPayment(joma),
          capacity,
        );
        log(`  Joma: ${JSON.stringify(jomaShed)}`);
        for (const s of servers.splice(-2)) await s.close();
        const skeletonShed = await shedLoad(
          await start('skeleton', scratch.url, { appId: joma.appId, rateLimitPerSecond }),
          await start('skeleton', scratch.url, { appId: joma.appId, rateLimitPerSecond: 1 }),
          probe,
          createPayment(joma),
          capacity,
          false,
        );
        log(`  skeleton: ${JSON.stringify(skeletonShed)}`);
        return { ...jomaShed, skeleton: skeletonShed };
      } finally {
        await probe.close();
      }
    };

    if (process.env.BENCH_API_ONLY === 'shedding') {
      // A quick look at load shedding alone: capacity from one round.
      const capacity = (await closedLoop(joma, createPayment(joma))).requestsPerSecond;
      log(`Load shedding: ${JSON.stringify(await shedBoth(capacity))}`);
      return;
    }
    if (process.env.BENCH_API_ONLY === 'invoices') {
      writeFileSync(
        join(__dirname, 'report-api-invoices.json'),
        `${JSON.stringify(await invoiceNumbering(joma), null, 2)}\n`,
      );
      return;
    }
    if (process.env.BENCH_API_ONLY === 'adapters') {
      const adapters = await compareAdapters(
        start,
        scratch.url,
        createPayment(joma),
        readPayment(joma),
      );
      writeFileSync(
        join(__dirname, 'report-api-adapters.json'),
        `${JSON.stringify(adapters, null, 2)}\n`,
      );
      return;
    }
    const health = await closedLoop(joma, { method: 'GET', path: '/healthz', expectStatus: 200 });
    log(`GET /healthz: ${JSON.stringify(health)}`);
    const p1 = await compare('P1 POST /api/v1/payments', joma, skeleton, () => createPayment(joma));
    const p2 = await compare('P2 GET /api/v1/payments/{id}', joma, skeleton, () =>
      readPayment(joma),
    );
    if (process.env.BENCH_API_ONLY === 'p1p2') {
      const only = {
        httpAdapter: benchHttpAdapter(),
        'P1 POST /api/v1/payments': p1,
        'P2 GET /api/v1/payments/{id}': p2,
      };
      writeFileSync(join(__dirname, 'report-api-p1p2.json'), `${JSON.stringify(only, null, 2)}\n`);
      return;
    }

    // The limiter's own cost at full speed: fresh servers warmed alike, one with
    // the limiter on but out of reach, one with RATE_LIMIT_PER_SECOND=0, on the
    // cheapest route (where its share is largest). Two such pairs, started in
    // opposite orders, their rounds pooled: two processes of one build differ
    // by a few per cent on their own, once by 7 % with one pair (bench/README.md,
    // "The limiter's cost"). Twice P2's rounds in all, of twice the requests.
    const limiterRuns: [Measured[], Measured[]] = [[], []];
    for (const order of [
      ['on', 'off'],
      ['off', 'on'],
    ] as const) {
      const pair = {} as Record<'on' | 'off', RunningServer>;
      for (const limit of order)
        pair[limit] = await start('joma', scratch.url, {
          rateLimitPerSecond: limit === 'on' ? 1_000_000 : 0,
        });
      for (const s of [pair.on, pair.off])
        await closedLoop(s, readPayment(joma), LIMITER_WARM_REQUESTS);
      const [on, off] = await alternate(
        pair.on,
        pair.off,
        () => readPayment(joma),
        ROUNDS + 1,
        2 * REQUESTS,
      );
      limiterRuns[0].push(...on);
      limiterRuns[1].push(...off);
      for (const s of servers.splice(-2)) await s.close();
    }
    const limiter = compared(...limiterRuns);
    log(`Limiter on vs off, GET /api/v1/payments/{id}, two pairs: ${JSON.stringify(limiter)}`);
    const limiterOwn = limiterOwnCost(p2.joma.serverCpuUsPerRequest);
    log(`Limiter's own cost per call, in this process: ${JSON.stringify(limiterOwn)}`);

    const adapters = await compareAdapters(
      start,
      scratch.url,
      createPayment(joma),
      readPayment(joma),
    );
    for (const s of servers.splice(-2)) await s.close();

    const invoices = await invoiceNumbering(joma);

    // Load shedding on the write route: limit at a quarter of its capacity, offered twice the capacity.
    const shed = await shedBoth(p1.joma.requestsPerSecond);
    log(`Load shedding, POST /api/v1/payments: ${JSON.stringify(shed)}`);

    const report = {
      generatedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
      database: databaseLabel(),
      settings: {
        requestsPerRound: REQUESTS,
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
        invoiceRounds: { rounds: INVOICE_ROUNDS, requestsPerRound: INVOICE_REQUESTS },
        keepAlive: true,
        servers: 'one process each; Joma logs at info',
        httpAdapter: benchHttpAdapter(),
      },
      scenarios: {
        'GET /healthz': health,
        'P1 POST /api/v1/payments': p1,
        'P2 GET /api/v1/payments/{id}': p2,
        'Limiter cost (GET /api/v1/payments/{id}, on vs off)': {
          ...limiter,
          costPercent: round((1 - limiter.ratio.throughput) * 100),
          ownCost: limiterOwn,
        },
        'Fastify vs Express (Joma on each, HTTP_ADAPTER)': adapters,
        'POST /api/v1/invoices (Idempotency-Key), one app vs eight': invoices,
        'Load shedding (POST /api/v1/payments)': shed,
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
