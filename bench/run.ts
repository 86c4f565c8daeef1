/**
 * Webhook delivery benchmark (`npm run bench`).
 *
 * Starts the real app (workers on) against a scratch database, a receiver on
 * 127.0.0.1 answering 200, and measures:
 *   1. commit-to-first-attempt latency: events recorded one at a time, time
 *      from the commit returning to the request arriving (p50/p99);
 *   2. throughput: a burst of events fanned out to several endpoints, deliveries
 *      acknowledged per second until every one is DELIVERED.
 * Writes bench/report.json (gitignored). Bounded in count and time:
 *   BENCH_LATENCY_EVENTS (200), BENCH_EVENTS (2000), BENCH_ENDPOINTS (3), BENCH_TIMEOUT_S (180).
 * Uses the PostgreSQL server of DATABASE_URL (a scratch database is created and
 * dropped), or an embedded one under .data/bench-pg.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { TransactionHost } from '@nestjs-cls/transactional';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { AppModule } from '../src/app.module';
import { AppsService } from '../src/apps/apps.service';
import { AppConfig } from '../src/config/app-config';
import { databaseLabel, scratchDatabase } from './scratch-database';
import { EventsService } from '../src/events/events.service';
import { WebhookEndpointsService } from '../src/webhooks/endpoints/webhook-endpoints.service';

const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 200);
const BURST_EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const ENDPOINTS = Math.min(5, Number(process.env.BENCH_ENDPOINTS ?? 3));
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 180) * 1000;
const started = Date.now();

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}
const round = (n: number) => Math.round(n * 100) / 100;

async function withDeadline<T>(what: string, until: () => Promise<T | null>): Promise<T> {
  for (;;) {
    const v = await until();
    if (v !== null) return v;
    if (Date.now() - started > TIMEOUT_MS)
      throw new Error(`benchmark time limit reached while waiting for ${what}`);
    await sleep(20);
  }
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase('webhooks');
  const databaseUrl = scratch.url;

  // --- receiver: records arrival per delivery id, answers 200
  const arrivals = new Map<number, number>();
  let received = 0;
  const receiver = createServer((req, res) => {
    const id = Number(req.headers['x-webhook-id']);
    if (!arrivals.has(id)) arrivals.set(id, performance.now());
    received++;
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  let nest: Awaited<ReturnType<typeof NestFactory.create>> | undefined;
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
    });
    nest = await NestFactory.create(AppModule.forRoot(config), {
      logger: false,
      bodyParser: false,
    });
    await nest.init();
    await db.connect();

    const { app } = await nest.get(AppsService).create('bench');
    const scope = { appId: app.id, mode: 'TEST' as const };
    const endpoints = nest.get(WebhookEndpointsService);
    for (let i = 0; i < ENDPOINTS; i++)
      await endpoints.create(scope, { url: `${receiverUrl}/e${i}`, events: ['*'] });
    const txHost = nest.get(TransactionHost);
    const events = nest.get(EventsService);
    const record = (n: number) =>
      txHost.withTransaction(async () => {
        const ids: number[] = [];
        for (let i = 0; i < n; i++)
          ids.push(
            (
              await events.record(scope, 'payment.succeeded', {
                payment_id: i,
                amount_minor: 150000,
                previous_status: 'pending',
              })
            ).id,
          );
        return ids;
      });
    const deliveredCount = async () =>
      Number(
        (
          await db.query(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'DELIVERED'`,
          )
        ).rows[0].n,
      );

    // --- 1. latency: one event at a time, the system otherwise idle
    log(`latency: ${LATENCY_EVENTS} events x ${ENDPOINTS} endpoints, one at a time`);
    const commitAt = new Map<number, number>();
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const [id] = await record(1);
      commitAt.set(id, performance.now());
      const want = (i + 1) * ENDPOINTS;
      await withDeadline('latency deliveries', async () => (arrivals.size >= want ? true : null));
      if (Date.now() - started > TIMEOUT_MS) break;
    }
    await withDeadline('latency DELIVERED', async () =>
      (await deliveredCount()) >= commitAt.size * ENDPOINTS ? true : null,
    );
    const rows = (
      await db.query<{ id: number; event_id: number }>(
        `SELECT id, event_id FROM webhook_deliveries`,
      )
    ).rows;
    const latencies = rows
      .filter((r) => arrivals.has(Number(r.id)) && commitAt.has(Number(r.event_id)))
      .map((r) => arrivals.get(Number(r.id))! - commitAt.get(Number(r.event_id))!)
      .sort((a, b) => a - b);

    // --- 2. throughput: a burst, committed in transactions of 100 events
    const before = await deliveredCount();
    const total = BURST_EVENTS * ENDPOINTS;
    log(`throughput: ${BURST_EVENTS} events x ${ENDPOINTS} endpoints = ${total} deliveries`);
    const t0 = performance.now();
    for (let done = 0; done < BURST_EVENTS; done += 100)
      await record(Math.min(100, BURST_EVENTS - done));
    const committedMs = performance.now() - t0;
    let timedOut = false;
    try {
      await withDeadline('burst DELIVERED', async () =>
        (await deliveredCount()) - before >= total ? true : null,
      );
    } catch {
      timedOut = true;
    }
    const elapsedMs = performance.now() - t0;
    const delivered = (await deliveredCount()) - before;
    const duplicates = received - arrivals.size;

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
        endpoints: ENDPOINTS,
        pollIntervalMs: config.webhookPollIntervalMs,
        receiver: '127.0.0.1, answers 200 at once',
      },
      latency: {
        what: 'commit of the recording transaction -> first attempt arriving at the receiver',
        events: commitAt.size,
        samples: latencies.length,
        p50Ms: round(percentile(latencies, 50)),
        p99Ms: round(percentile(latencies, 99)),
        maxMs: round(latencies[latencies.length - 1] ?? NaN),
      },
      throughput: {
        events: BURST_EVENTS,
        deliveries: total,
        delivered,
        timedOut,
        recordingSeconds: round(committedMs / 1000),
        seconds: round(elapsedMs / 1000),
        deliveriesPerSecond: round(delivered / (elapsedMs / 1000)),
      },
      duplicateRequests: duplicates,
    };
    writeFileSync(join(__dirname, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    log(JSON.stringify(report, null, 2));
    log(`written to bench/report.json`);
  } finally {
    if (nest) await nest.close();
    await db.end().catch(() => undefined);
    receiver.closeAllConnections();
    await new Promise((ok) => receiver.close(ok));
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
