/**
 * List benchmark (`npm run bench:lists`, part of `npm run bench`).
 *
 * Seeds one app's LIVE partition with invoices, payments and events by SQL
 * in a scratch database (a second app holds a tenth as many, so the
 * partition is not the whole table), growing through BENCH_LIST_SIZES
 * (10k, 100k, 1M), and at each size drives the real HTTP app:
 * - first page of every list route, default sort (BENCH_LIST_SAMPLES requests, one at a time);
 * - the deepest page the cap allows (page * size = 10,000 - size);
 * - a cursor page in the middle of the partition;
 * - eight concurrent first pages (the slowest of them);
 * and checks every answer (status, 20 rows, exact totals).
 * Writes bench/report-lists.json.
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:lists
 */
import 'reflect-metadata';

import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import type { INestApplication } from '@nestjs/common';
import { Client } from 'pg';

import { AppModule } from '../src/app.module';
import { AppsService } from '../src/apps';
import { configureApp } from '../src/bootstrap/configure-app';
import { createHttpApp } from '../src/bootstrap/http-adapter';
import { AppConfig } from '../src/config/app-config';
import { databaseLabel, scratchDatabase } from './scratch-database';
import { percentile } from './stats';

const SIZES = (process.env.BENCH_LIST_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const SAMPLES = Number(process.env.BENCH_LIST_SAMPLES ?? 20);
const PAGE_SIZE = 20;
const DEEP_PAGE = 10_000 / PAGE_SIZE - 1;
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (n: number) => Math.round(n * 10) / 10;
const ADMIN = { email: 'bench-admin@joma.test', password: 'bench-admin-password-1' };

interface Answer {
  status: number;
  body: { data: unknown[]; pagination: { totalElements: number; nextCursor?: string } };
}

function get(agent: Agent, port: number, path: string, headers: Record<string, string>) {
  return new Promise<Answer>((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        ok({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
      );
    });
    req.on('error', fail);
    req.end();
  });
}

/** The rows one partition must hold; each answer is checked against it. */
function check(route: string, a: Answer, total: number): void {
  if (a.status !== 200) throw new Error(`${route}: ${a.status} ${JSON.stringify(a.body)}`);
  if (a.body.data.length !== PAGE_SIZE)
    throw new Error(`${route}: ${a.body.data.length} rows, expected ${PAGE_SIZE}`);
  if (a.body.pagination.totalElements !== total)
    throw new Error(
      `${route}: totalElements ${a.body.pagination.totalElements}, expected ${total}`,
    );
}

async function seed(db: Client, appId: number, other: number, from: number, to: number) {
  const t0 = performance.now();
  for (const [app, lo, hi] of [
    [appId, from, to],
    [other, Math.floor(from / 10), Math.floor(to / 10)],
  ]) {
    const customer = (
      await db.query(
        `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'LIVE', 'bench')
         ON CONFLICT (app_id, mode, external_id) DO UPDATE SET name = NULL RETURNING id`,
        [app],
      )
    ).rows[0].id as number;
    // Rows spread over the last ~400 days, a little out of id order, as real traffic is.
    const at = `now() - ((${hi} - g) * interval '30 second') - (g % 7) * interval '1 second'`;
    await db.query(
      `INSERT INTO invoices (app_id, mode, number, status, customer_id, total_minor, amount_paid_minor, due_date, issued_at, pay_token, created_at, updated_at)
       SELECT $1::bigint, 'LIVE', 'INV-' || lpad(g::text, 7, '0'), 'ISSUED', $2,
              1000 + g % 9000, 0, (${at})::date + 7, ${at}, 'tok_' || $1::text || '_' || g, ${at}, ${at}
         FROM generate_series($3::int + 1, $4::int) g`,
      [app, customer, lo, hi],
    );
    await db.query(
      `INSERT INTO invoice_counters (app_id, mode, last_number) VALUES ($1, 'LIVE', $2)
       ON CONFLICT (app_id, mode) DO UPDATE SET last_number = EXCLUDED.last_number`,
      [app, hi],
    );
    await db.query(
      `INSERT INTO payments (app_id, mode, reference, status, amount_minor, gateway, customer_id, expires_at, created_at, updated_at)
       SELECT $1::bigint, 'LIVE', 'pay_' || $1::text || '_' || g || '_bench', (ARRAY['PENDING','FAILED','CANCELLED'])[1 + g % 3],
              1000 + g % 9000, 'sandbox', $2, ${at} + interval '1 hour', ${at}, ${at}
         FROM generate_series($3::int + 1, $4::int) g`,
      [app, customer, lo, hi],
    );
    await db.query(
      `INSERT INTO events (app_id, mode, type, data, created_at)
       SELECT $1, 'LIVE', 'payment.succeeded', jsonb_build_object('n', g), ${at}
         FROM generate_series($2::int + 1, $3::int) g`,
      [app, lo, hi],
    );
  }
  await db.query('VACUUM ANALYZE invoices, payments, events');
  return performance.now() - t0;
}

async function timed(n: number, call: () => Promise<Answer>, verify: (a: Answer) => void) {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    const a = await call();
    ms.push(performance.now() - s);
    verify(a);
  }
  ms.sort((a, b) => a - b);
  return { p50Ms: round(percentile(ms, 50)), p95Ms: round(percentile(ms, 95)) };
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase('lists');
  const db = new Client({ connectionString: scratch.url });
  let nest: INestApplication | undefined;
  try {
    const config = new AppConfig({
      port: 0,
      databaseUrl: scratch.url,
      adminEmail: ADMIN.email,
      adminPassword: ADMIN.password,
      jwtSecret: randomBytes(32).toString('hex'),
      encryptionKeyHex: randomBytes(32).toString('hex'),
      workersEnabled: false,
      logLevel: 'silent',
      // Measures the service, not the rate limiter (bench/api.ts measures that).
      rateLimitPerSecond: 0,
    });
    // As main.ts builds it (the HTTP adapter's settings, the interceptor binding).
    nest = await createHttpApp(AppModule.forRoot(config), config, { logger: false });
    configureApp(nest);
    await nest.listen(0, '127.0.0.1');
    const port = (nest.getHttpServer().address() as { port: number }).port;
    await db.connect();
    const apps = nest.get(AppsService);
    const { app, credentials } = await apps.create('bench-lists');
    const { app: other } = await apps.create('bench-lists-other');
    const live = credentials.find((c) => c.mode === 'LIVE')!;
    const appAuth = { 'x-api-key': live.apiKey, 'x-api-secret': live.apiSecret };
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const token = await new Promise<string>((ok, fail) => {
      const body = JSON.stringify(ADMIN);
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/auth/login',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => ok(JSON.parse(Buffer.concat(chunks).toString()).data.token));
        },
      );
      req.on('error', fail);
      req.end(body);
    });
    const adminAuth = { authorization: `Bearer ${token}` };
    const routes = [
      { name: 'GET /api/v1/invoices', path: '/api/v1/invoices', headers: appAuth },
      { name: 'GET /api/v1/payments', path: '/api/v1/payments', headers: appAuth },
      { name: 'GET /api/v1/events', path: '/api/v1/events', headers: appAuth },
      {
        name: 'GET /api/v1/admin/invoices',
        path: `/api/v1/admin/invoices?applicationId=${app.id}&mode=LIVE`,
        headers: adminAuth,
      },
      {
        name: 'GET /api/v1/admin/invoices (all apps)',
        path: '/api/v1/admin/invoices',
        headers: adminAuth,
      },
    ];
    const results: Record<string, unknown> = {};
    let seeded = 0;
    for (const size of SIZES) {
      const seedMs = await seed(db, app.id, other.id, seeded, size);
      seeded = size;
      log(`seeded ${size} rows per table in the partition (${Math.round(seedMs / 1000)} s)`);
      const perRoute: Record<string, unknown> = {};
      for (const r of routes) {
        const all = r.name.endsWith('(all apps)');
        const total = all ? size + Math.floor(size / 10) : size;
        const sep = r.path.includes('?') ? '&' : '?';
        const url = (q: string) => `${r.path}${sep}size=${PAGE_SIZE}${q}`;
        const call = (q: string) => () => get(agent, port, url(q), r.headers);
        const verify = (a: Answer) => check(r.name, a, total);
        await call('')(); // warm
        const first = await timed(SAMPLES, call(''), verify);
        const deep = await timed(SAMPLES, call(`&page=${DEEP_PAGE}`), verify);
        // A cursor as deep as offsets reach (the middle of a 10k partition).
        const at = Math.min(DEEP_PAGE, Math.floor(size / PAGE_SIZE / 2));
        const mid = (await get(agent, port, url(`&page=${at}`), r.headers)).body.pagination
          .nextCursor!;
        const cursor = await timed(SAMPLES, call(`&cursor=${mid}`), verify);
        const sorted =
          r.name === 'GET /api/v1/payments'
            ? await timed(SAMPLES, call('&sortBy=amountMinor&order=asc'), verify)
            : undefined;
        const concurrent = await Promise.all(
          Array.from({ length: 8 }, async () => {
            const s = performance.now();
            verify(await call('')());
            return performance.now() - s;
          }),
        );
        perRoute[r.name] = {
          firstPage: first,
          deepPage: { page: DEEP_PAGE, ...deep },
          cursorPage: cursor,
          ...(sorted ? { firstPageSortedByAmount: sorted } : {}),
          eightConcurrentFirstPagesMaxMs: round(Math.max(...concurrent)),
        };
        log(`${size} ${r.name}: ${JSON.stringify(perRoute[r.name])}`);
      }
      results[String(size)] = perRoute;
    }
    agent.destroy();
    const report = {
      generatedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
      database: databaseLabel(),
      settings: { pageSize: PAGE_SIZE, samples: SAMPLES, sizes: SIZES },
      results,
    };
    writeFileSync(join(__dirname, 'report-lists.json'), `${JSON.stringify(report, null, 2)}\n`);
    log('written to bench/report-lists.json');
  } finally {
    await db.end().catch(() => undefined);
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
