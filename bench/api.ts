/**
 * HTTP API benchmark (`npm run bench`, after the webhook one).
 *
 * Starts the real app (full HTTP stack: request id, body parsing, guards,
 * idempotency and envelope interceptors, validation) on 127.0.0.1 against a
 * scratch database, and drives a few representative routes with keep-alive
 * connections at a fixed concurrency, reporting requests per second and
 * latency percentiles. Writes bench/report-api.json (gitignored).
 * Bounded: BENCH_API_REQUESTS (2000) per scenario, BENCH_API_CONCURRENCY (16).
 * Uses the PostgreSQL server of DATABASE_URL (scratch database, dropped after)
 * or an embedded one under .data/bench-pg.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AppModule } from '../src/app.module';
import { AppsService } from '../src/apps/apps.service';
import { configureApp } from '../src/bootstrap/configure-app';
import { AppConfig } from '../src/config/app-config';
import { databaseLabel, scratchDatabase } from './scratch-database';

const REQUESTS = Number(process.env.BENCH_API_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_API_CONCURRENCY ?? 16);
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (n: number) => Math.round(n * 100) / 100;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

interface Call {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

function send(agent: Agent, port: number, call: Call): Promise<number> {
  return new Promise((ok, fail) => {
    const payload = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body));
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: call.method,
        path: call.path,
        agent,
        headers: {
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': payload.length }
            : {}),
          ...call.headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => ok(res.statusCode ?? 0));
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}

/** `REQUESTS` calls made by `CONCURRENCY` workers, each on keep-alive connections. */
async function scenario(name: string, port: number, expect: number, make: (i: number) => Call) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < REQUESTS; i = next++) {
        const s = performance.now();
        const status = await send(agent, port, make(i));
        latencies.push(performance.now() - s);
        if (status !== expect) errors++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const result = {
    requests: REQUESTS,
    errors,
    requestsPerSecond: round(REQUESTS / seconds),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
  };
  log(`${name}: ${JSON.stringify(result)}`);
  return result;
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase('api');
  const databaseUrl = scratch.url;
  let nest: NestExpressApplication | undefined;
  try {
    const config = new AppConfig({
      port: 0,
      databaseUrl,
      jwtSecret: randomBytes(32).toString('hex'),
      encryptionKeyHex: randomBytes(32).toString('hex'),
      workersEnabled: false,
      logLevel: 'silent',
    });
    nest = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
      logger: false,
      bodyParser: false,
    });
    configureApp(nest);
    await nest.listen(0, '127.0.0.1');
    const port = (nest.getHttpServer().address() as { port: number }).port;
    const { credentials } = await nest.get(AppsService).create('bench');
    const test = credentials.find((c) => c.mode === 'TEST')!;
    const auth = { 'x-api-key': test.apiKey, 'x-api-secret': test.apiSecret };
    const run = randomBytes(3).toString('hex');

    log(`API: ${REQUESTS} requests per scenario, concurrency ${CONCURRENCY}`);
    const health = await scenario('GET /healthz', port, 200, () => ({
      method: 'GET',
      path: '/healthz',
    }));
    const createPayment = await scenario('POST /api/v1/payments', port, 201, (i) => ({
      method: 'POST',
      path: '/api/v1/payments',
      headers: auth,
      body: { amountMinor: 150000, customerReference: `bench-${i % 50}` },
    }));
    const readPayment = await scenario('GET /api/v1/payments/{id}', port, 200, (i) => ({
      method: 'GET',
      path: `/api/v1/payments/${(i % 500) + 1}`,
      headers: auth,
    }));
    const createInvoice = await scenario(
      'POST /api/v1/invoices (Idempotency-Key)',
      port,
      201,
      (i) => ({
        method: 'POST',
        path: '/api/v1/invoices',
        headers: { ...auth, 'idempotency-key': `bench-${run}-${i}` },
        body: {
          customerReference: `bench-${i % 50}`,
          lineItems: [
            { description: 'Item A', qty: 2, unitAmountMinor: 45000 },
            { description: 'Item B', qty: 1, unitAmountMinor: 6000 },
          ],
        },
      }),
    );
    const readInvoice = await scenario('GET /api/v1/invoices/{id}', port, 200, (i) => ({
      method: 'GET',
      path: `/api/v1/invoices/${(i % 500) + 1}`,
      headers: auth,
    }));
    const report = {
      generatedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
      database: databaseLabel(),
      settings: { requestsPerScenario: REQUESTS, concurrency: CONCURRENCY, keepAlive: true },
      scenarios: {
        'GET /healthz': health,
        'POST /api/v1/payments': createPayment,
        'GET /api/v1/payments/{id}': readPayment,
        'POST /api/v1/invoices (Idempotency-Key)': createInvoice,
        'GET /api/v1/invoices/{id}': readInvoice,
      },
    };
    writeFileSync(join(__dirname, 'report-api.json'), `${JSON.stringify(report, null, 2)}\n`);
    log('written to bench/report-api.json');
  } finally {
    if (nest) await nest.close();
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
