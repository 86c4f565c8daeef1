/**
 * Renewal job benchmark: seeds SUBS subscriptions (ACTIVE, paid, monthly) of
 * which DUE have reached their period end, runs the job once
 * (SubscriptionRenewalJob.tick, as the scheduler would) and reports renewals
 * per second, the job's peak RSS, and whether the due query uses its index.
 * Writes bench/report-subscriptions.json.
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:subscriptions
 */
import 'reflect-metadata';

import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';

import { AppModule } from '../src/app.module';
import { AppsService } from '../src/apps';
import { AppConfig } from '../src/config/app-config';
import { SubscriptionRenewalJob } from '../src/subscriptions';
import { scratchDatabase } from './scratch-database';

const SUBS = Number(process.env.SUBS ?? 100_000);
const DUE = Number(process.env.DUE ?? 10_000);

async function main(): Promise<void> {
  const scratch = await scratchDatabase('subscriptions');
  const db = new Client({ connectionString: scratch.url });
  let nest: Awaited<ReturnType<typeof NestFactory.create>> | undefined;
  try {
    const config = new AppConfig({
      port: 0,
      databaseUrl: scratch.url,
      jwtSecret: randomBytes(32).toString('hex'),
      encryptionKeyHex: randomBytes(32).toString('hex'),
      workersEnabled: false,
      logLevel: 'silent',
      // Measures the service, not the rate limiter (bench/api.ts measures that).
      rateLimitPerSecond: 0,
    });
    nest = await NestFactory.create(AppModule.forRoot(config), { logger: false });
    await nest.init();
    await db.connect();
    const { app } = await nest.get(AppsService).create('bench');
    await db.query(`UPDATE apps SET max_amount_minor = 100000000 WHERE id = $1`, [app.id]);
    const product = await db.query(
      `INSERT INTO products (app_id, mode, name, status) VALUES ($1, 'TEST', 'Plan', 'ACTIVE') RETURNING id`,
      [app.id],
    );
    const productId = product.rows[0].id;
    const price = await db.query(
      `INSERT INTO prices (app_id, mode, product_id, type, amount_minor, currency, interval, interval_count, trial_days, active)
       VALUES ($1, 'TEST', $2, 'RECURRING', 50000, 'BDT', 'MONTH', 1, 0, true) RETURNING id`,
      [app.id, productId],
    );
    const customer = await db.query(
      `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'TEST', 'bench') RETURNING id`,
      [app.id],
    );
    const t0 = performance.now();
    // DUE subscriptions whose period ended yesterday; the rest end in 20 days.
    await db.query(
      `INSERT INTO subscriptions (app_id, mode, customer_id, price_id, product_id, status, product_name, amount_minor,
         currency, interval, interval_count, start_date, billing_anchor, period_index, current_period_start,
         next_billing_date, first_invoice_paid, next_action_at)
       SELECT $1, 'TEST', $2, $3, $4, 'ACTIVE', 'Plan', 50000, 'BDT', 'MONTH', 1,
              d.anchor, d.anchor, 0, d.anchor, d.next, true, (d.next::timestamp - interval '6 hours') AT TIME ZONE 'UTC'
         FROM generate_series(1, $5) AS g(i),
              LATERAL (SELECT CASE WHEN g.i <= $6 THEN current_date - 31 ELSE current_date - 10 END AS anchor) a,
              LATERAL (SELECT a.anchor, (a.anchor + interval '1 month')::date AS next) d`,
      [app.id, customer.rows[0].id, price.rows[0].id, productId, SUBS, DUE],
    );
    await db.query('ANALYZE subscriptions');
    const seedMs = performance.now() - t0;
    const plan = (
      await db.query(
        `EXPLAIN SELECT id FROM subscriptions WHERE next_action_at <= now() ORDER BY next_action_at, id LIMIT 500`,
      )
    ).rows
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    const job = nest.get(SubscriptionRenewalJob);
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
    const rssBefore = process.memoryUsage().rss;
    const start = performance.now();
    const processed = (await job.tick()) ?? 0;
    const ms = performance.now() - start;
    clearInterval(sampler);
    const invoices = Number(
      (await db.query(`SELECT count(*)::int AS n FROM invoices WHERE subscription_id IS NOT NULL`))
        .rows[0].n,
    );
    const result = {
      at: new Date().toISOString(),
      subscriptions: SUBS,
      due: DUE,
      processed,
      renewalInvoices: invoices,
      seconds: +(ms / 1000).toFixed(2),
      renewalsPerSecond: Math.round(processed / (ms / 1000)),
      peakRssMb: Math.round(peakRss / 1048576),
      rssGrowthMb: Math.round((peakRss - rssBefore) / 1048576),
      dueQueryUsesIndex: plan.includes('subscriptions_due'),
      seedSeconds: +(seedMs / 1000).toFixed(1),
    };
    console.log(JSON.stringify(result, null, 2));
    writeFileSync(
      join(__dirname, 'report-subscriptions.json'),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    if (processed !== DUE || invoices !== DUE) process.exitCode = 1;
  } finally {
    await nest?.close();
    await db.end();
    await scratch.drop();
  }
}

void main();
