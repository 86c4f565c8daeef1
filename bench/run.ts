/**
 * Webhook delivery benchmark (`npm run bench`, P3 of issue #12).
 *
 * Starts the real app (workers on) against a scratch database and a receiver
 * on 127.0.0.1 answering 200 (in a worker thread, so it does not share the
 * app's event loop), and measures:
 *   1. idle latency: events recorded one at a time, commit returning ->
 *      first attempt arriving (p50/p99);
 *   2. keeping up: 16 HTTP clients creating invoices (POST /api/v1/invoices,
 *      one `invoice.issued` event each) as fast as they can for BENCH_KEEPUP_S
 *      seconds, one endpoint: events/s created, deliveries/s, backlog when
 *      creation stops, event recorded -> first attempt p50/p99;
 *   3. drain: a backlog of BENCH_EVENTS deliveries (workers stopped while it
 *      is made) drained to one endpoint, then to three: deliveries/s.
 * Writes bench/report.json (gitignored). Bounded in count and time:
 *   BENCH_LATENCY_EVENTS (200), BENCH_KEEPUP_S (10), BENCH_EVENTS (5000), BENCH_TIMEOUT_S (180).
 * Uses the PostgreSQL server of DATABASE_URL (a scratch database is created and
 * dropped), or an embedded one under .data/bench-pg.
 */
import 'reflect-metadata';

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

import type { INestApplication } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Client } from 'pg';

import { AppModule } from '../src/app.module';
import { AppsService } from '../src/apps';
import { configureApp } from '../src/bootstrap/configure-app';
import { createHttpApp } from '../src/bootstrap/http-adapter';
import { AppConfig } from '../src/config/app-config';
import { EventsService } from '../src/events';
import { WebhookWorkers } from '../src/webhooks';
import { runLoad } from './load';
import { databaseLabel, repoRoot, scratchDatabase } from './scratch-database';
import { compiledBench, hostTicks, stealPercent } from './server-process';
import { percentile, round } from './stats';

const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 200);
const KEEPUP_MS = Number(process.env.BENCH_KEEPUP_S ?? 10) * 1000;
const CLIENTS = 16;
const BACKLOG = Number(process.env.BENCH_EVENTS ?? 5000);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 180) * 1000;
const started = Date.now();

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
/** Wall-clock milliseconds with sub-ms precision, comparable across threads. */
const now = () => performance.timeOrigin + performance.now();

async function withDeadline<T>(what: string, until: () => Promise<T | null>): Promise<T> {
  for (;;) {
    const v = await until();
    if (v !== null) return v;
    if (Date.now() - started > TIMEOUT_MS)
      throw new Error(`benchmark time limit reached while waiting for ${what}`);
    await sleep(20);
  }
}

/** The receiver, in its own thread: answers 200 and reports first arrivals (delivery id -> time). */
const RECEIVER = `
const { parentPort } = require('node:worker_threads');
const { createServer } = require('node:http');
const { performance } = require('node:perf_hooks');
let batch = [];
let received = 0;
const server = createServer((req, res) => {
  batch.push([Number(req.headers['x-webhook-id']), performance.timeOrigin + performance.now()]);
  received++;
  req.resume();
  req.on('end', () => res.writeHead(200).end());
});
server.keepAliveTimeout = 65000;
setInterval(() => { if (batch.length) { parentPort.postMessage({ arrivals: batch, received }); batch = []; } }, 5).unref();
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => { if (m === 'close') { server.closeAllConnections(); server.close(() => process.exit(0)); } });
`;

async function main(): Promise<void> {
  const scratch = await scratchDatabase('webhooks');
  const databaseUrl = scratch.url;

  const arrivals = new Map<number, number>();
  let received = 0;
  const receiver = new Worker(RECEIVER, { eval: true });
  const port = await new Promise<number>((ok) =>
    receiver.on(
      'message',
      (m: { port?: number; arrivals?: [number, number][]; received?: number }) => {
        if (m.port) ok(m.port);
        for (const [id, at] of m.arrivals ?? []) if (!arrivals.has(id)) arrivals.set(id, at);
        if (m.received) received = m.received;
      },
    ),
  );
  const receiverUrl = `http://127.0.0.1:${port}`;

  let nest: INestApplication | undefined;
  const db = new Client({ connectionString: databaseUrl });
  try {
    const config = new AppConfig({
      port: 0,
      databaseUrl,
      jwtSecret: randomBytes(32).toString('hex'),
      encryptionKeyHex: randomBytes(32).toString('hex'),
      webhookTestAllowedSchemes: ['http', 'https'],
      webhookAllowPrivateTargets: true,
      workersEnabled: true,
      logLevel: 'silent',
      // Measures the service, not the rate limiter (bench/api.ts measures that).
      rateLimitPerSecond: 0,
    });
    // As main.ts builds it (the HTTP adapter's settings, the interceptor binding).
    nest = await createHttpApp(AppModule.forRoot(config), config, { logger: false });
    configureApp(nest);
    await nest.listen(0, '127.0.0.1');
    const apiPort = (nest.getHttpServer().address() as { port: number }).port;
    await db.connect();

    const apps = nest.get(AppsService);
    const workers = nest.get(WebhookWorkers);
    const { app: one, credentials } = await apps.create('bench-one-endpoint');
    const key = credentials.find((c) => c.mode === 'TEST')!;
    const { app: three, credentials: threeCredentials } =
      await apps.create('bench-three-endpoints');
    const oneScope = { appId: one.id, mode: 'TEST' as const };
    const threeScope = { appId: three.id, mode: 'TEST' as const };
    // Endpoints as an integrator makes them: through the API, with the app's TEST key.
    const endpoint = async (c: typeof key, url: string) => {
      const res = await fetch(`http://127.0.0.1:${apiPort}/api/v1/webhook-endpoints`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': c.apiKey,
          'x-api-secret': c.apiSecret,
        },
        body: JSON.stringify({ url, events: ['*'] }),
      });
      if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${await res.text()}`);
    };
    await endpoint(key, `${receiverUrl}/one`);
    const threeKey = threeCredentials.find((c) => c.mode === 'TEST')!;
    for (let i = 0; i < 3; i++) await endpoint(threeKey, `${receiverUrl}/three-${i}`);
    const txHost = nest.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
    const events = nest.get(EventsService);
    const record = (scope: typeof oneScope, n: number) =>
      txHost.withTransaction(async () => {
        const ids: number[] = [];
        for (let i = 0; i < n; i++) {
          await events.record(scope, 'payment.succeeded', {
            payment_id: i,
            amount_minor: 150000,
            previous_status: 'pending',
          });
          const [{ id }] = (await txHost.tx.query(
            `SELECT currval(pg_get_serial_sequence('events', 'id'))::int AS id`,
          )) as { id: number }[];
          ids.push(id);
        }
        return ids;
      });
    const delivered = async (appId: number) =>
      Number(
        (
          await db.query(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'DELIVERED' AND app_id = $1`,
            [appId],
          )
        ).rows[0].n,
      );
    /** Commit -> first arrival of each delivery of these events. */
    const latenciesOf = async (commitAt: Map<number, number>) => {
      const rows = (
        await db.query<{ id: number; event_id: number }>(
          `SELECT id, event_id FROM webhook_deliveries WHERE event_id = ANY($1::bigint[])`,
          [[...commitAt.keys()]],
        )
      ).rows;
      return rows
        .filter((r) => arrivals.has(Number(r.id)))
        .map((r) => arrivals.get(Number(r.id))! - commitAt.get(Number(r.event_id))!)
        .sort((a, b) => a - b);
    };

    /**
     * Where the time between recording and arrival goes, p50/p99 of each
     * stage: recorded -> fanned out (the relay's transaction), fanned out ->
     * attempt started (NOTIFY, the claim, signing), started -> arrived (HTTP).
     */
    const stagesOf = async (recordedAt: Map<number, number>) => {
      const rows = (
        await db.query<{ id: string; event_id: string; fanned: number; started: number }>(
          `SELECT d.id, d.event_id, extract(epoch FROM e.fanned_out_at) * 1000 AS fanned,
                  extract(epoch FROM a.started_at) * 1000 AS started
             FROM webhook_deliveries d
             JOIN events e ON e.id = d.event_id
             JOIN webhook_delivery_attempts a ON a.delivery_id = d.id AND a.attempt_number = 1
            WHERE d.event_id = ANY($1::bigint[])`,
          [[...recordedAt.keys()]],
        )
      ).rows.filter((r) => arrivals.has(Number(r.id)));
      const stage = (f: (r: (typeof rows)[number]) => number) => {
        const xs = rows.map(f).sort((a, b) => a - b);
        return { p50Ms: round(percentile(xs, 50)), p99Ms: round(percentile(xs, 99)) };
      };
      return {
        recordedToFannedOut: stage((r) => Number(r.fanned) - recordedAt.get(Number(r.event_id))!),
        fannedOutToAttempt: stage((r) => Number(r.started) - Number(r.fanned)),
        attemptToArrival: stage((r) => arrivals.get(Number(r.id))! - Number(r.started)),
      };
    };

    // --- 1. idle latency: one event at a time
    log(`latency: ${LATENCY_EVENTS} events, one at a time, one endpoint`);
    const idleCommits = new Map<number, number>();
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const [id] = await record(oneScope, 1);
      idleCommits.set(id, now());
      const want = i + 1;
      await withDeadline('latency deliveries', async () => (arrivals.size >= want ? true : null));
    }
    const idle = await latenciesOf(idleCommits);

    // --- 2. keeping up: 16 HTTP clients creating invoices as fast as they can
    log(`keep-up: ${CLIENTS} clients creating invoices, ${KEEPUP_MS / 1000} s, one endpoint`);
    // The clients run in a worker thread (bench/load.ts), as the API bench's
    // do: clients are other processes, not work on the service's event loop.
    const deliveredBefore = await delivered(one.id);
    const eventsBefore = Number(
      (await db.query(`SELECT coalesce(max(id), 0) AS n FROM events`)).rows[0].n,
    );
    const load = await runLoad({
      port: apiPort,
      concurrency: CLIENTS,
      requests: Number.MAX_SAFE_INTEGER,
      seconds: KEEPUP_MS / 1000,
      method: 'POST',
      path: '/api/v1/invoices',
      headers: { 'x-api-key': key.apiKey, 'x-api-secret': key.apiSecret },
      body: JSON.stringify({
        customerReference: 'bench',
        lineItems: [{ description: 'Item', qty: 1, unitAmountMinor: 45000 }],
      }),
      expectStatus: 201,
    });
    if (load.errors > 0)
      throw new Error(
        `POST /api/v1/invoices: ${load.errors} answers other than 201 (${JSON.stringify(load.byStatus)})`,
      );
    const created = load.requests;
    const createdMs = load.seconds * 1000;
    const deliveredInWindow = (await delivered(one.id)) - deliveredBefore;
    // Every event of the window, with the moment it was recorded (just before its commit).
    const keepEvents = new Map<number, number>(
      (
        await db.query<{ id: number; at: number }>(
          `SELECT id, extract(epoch FROM created_at) * 1000 AS at FROM events WHERE id > $1 AND app_id = $2`,
          [eventsBefore, one.id],
        )
      ).rows.map((r) => [Number(r.id), Number(r.at)]),
    );
    const backlogAtEnd = keepEvents.size - deliveredInWindow;
    await withDeadline('keep-up DELIVERED', async () =>
      (await delivered(one.id)) - deliveredBefore >= keepEvents.size ? true : null,
    );
    const keepLatencies = await latenciesOf(keepEvents);
    const keepStages = await stagesOf(keepEvents);

    // --- 3. drain a backlog made while the workers were stopped
    const drain = async (scope: typeof oneScope, endpointCount: number) => {
      await workers.stop();
      const before = await delivered(scope.appId);
      for (let done = 0; done < BACKLOG; done += 500)
        await record(scope, Math.min(500, BACKLOG - done));
      await workers.fanOutAllStopped();
      const total = BACKLOG * endpointCount;
      const t = performance.now();
      const host = hostTicks();
      await workers.start();
      await withDeadline('drain DELIVERED', async () =>
        (await delivered(scope.appId)) - before >= total ? true : null,
      );
      const seconds = (performance.now() - t) / 1000;
      return {
        deliveries: total,
        seconds: round(seconds),
        deliveriesPerSecond: round(total / seconds),
        // The share of the machine the hypervisor gave other guests meanwhile.
        hostStealPercent: stealPercent(host, hostTicks()),
      };
    };
    log(`drain: ${BACKLOG} deliveries to one endpoint, then ${BACKLOG * 3} to three`);
    const drainOne = await drain(oneScope, 1);
    const drainThree = await drain(threeScope, 3);
    await sleep(50);

    const report = {
      generatedAt: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        memoryGiB: round(totalmem() / 2 ** 30),
        node: process.version,
      },
      database: databaseLabel(),
      settings: {
        pollIntervalMs: config.webhookPollIntervalMs,
        receiver: '127.0.0.1, answers 200 at once, in a worker thread',
      },
      latency: {
        what: 'commit of the recording transaction -> first attempt arriving at the receiver, system idle',
        samples: idle.length,
        p50Ms: round(percentile(idle, 50)),
        p99Ms: round(percentile(idle, 99)),
      },
      keepUp: {
        clients: CLIENTS,
        seconds: round(createdMs / 1000),
        invoicesCreated: created,
        eventsCreated: keepEvents.size,
        eventsPerSecond: round(keepEvents.size / (createdMs / 1000)),
        deliveredWhileCreating: deliveredInWindow,
        backlogAtEnd,
        recordedToFirstAttempt: {
          samples: keepLatencies.length,
          p50Ms: round(percentile(keepLatencies, 50)),
          p99Ms: round(percentile(keepLatencies, 99)),
        },
        stages: keepStages,
      },
      drain: { oneEndpoint: drainOne, threeEndpoints: drainThree },
      duplicateRequests: received - arrivals.size,
    };
    writeFileSync(join(repoRoot, 'bench', 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    log(JSON.stringify(report, null, 2));
    log(`written to bench/report.json`);
  } finally {
    if (nest) await nest.close();
    await db.end().catch(() => undefined);
    receiver.postMessage('close');
    await scratch.drop();
  }
}

if (__filename.endsWith('.ts')) {
  // The service runs in this process: run it as compiled JavaScript, as
  // `npm start` does (see compiledBench), not under ts-node.
  const run = spawnSync(process.execPath, [compiledBench('run')], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
} else
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
