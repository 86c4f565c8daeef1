/**
 * Settlement import and reconciliation benchmark: seeds PAYMENTS captured
 * payments in one Dhaka day, builds a settlement CSV of the same size (a few
 * amount mismatches and unknown lines), then times the import (parse,
 * insert, ledger postings) and the reconciliation run of the day, reporting
 * lines/s for both and the peak RSS. Writes bench/report-reconciliation.json.
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:reconciliation
 */
import 'reflect-metadata';

import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';

import { AppModule } from '../src/app.module';
import { AppsService } from '../src/apps';
import { AppConfig } from '../src/config/app-config';
import { ReconciliationService, SettlementsService } from '../src/reconciliation';
import { scratchDatabase } from './scratch-database';

const PAYMENTS = Number(process.env.PAYMENTS ?? 100_000);
const PERIOD = '2026-11-24';

async function main(): Promise<void> {
  const scratch = await scratchDatabase('reconciliation');
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
    const customer = await db.query(
      `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'LIVE', 'bench') RETURNING id`,
      [app.id],
    );
    // Captures spread over 00:00-21:59 Dhaka (none deferred).
    await db.query(
      `INSERT INTO payments (app_id, mode, reference, status, amount_minor, currency, gateway, gateway_txn_id, customer_id, expires_at, succeeded_at)
       SELECT $1, 'LIVE', 'pay_b' || g, 'SUCCEEDED', 1000 + g % 5000, 'BDT', 'sandbox', 'TXN' || g, $2,
              now(), '${PERIOD}T00:00:00+06:00'::timestamptz + (g % 79200) * interval '1 second'
         FROM generate_series(1, $3) g`,
      [app.id, customer.rows[0].id, PAYMENTS],
    );
    await db.query('ANALYZE payments');
    const lines = ['gateway_txn_id,amount_minor,currency,transaction_time,fee_minor'];
    for (let g = 1; g <= PAYMENTS; g++) {
      const amount = 1000 + (g % 5000) + (g % 1000 === 0 ? 1 : 0); // 0.1 % mismatches
      const at = new Date(Date.parse(`${PERIOD}T00:00:00+06:00`) + (g % 79200) * 1000);
      lines.push(
        `${g % 997 === 0 ? 'UNKNOWN' : 'TXN'}${g},${amount},BDT,${at.toISOString()},${Math.floor(amount / 50)}`,
      );
    }
    const csv = lines.join('\n');
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    // How long the import held the event loop at a stretch (what every other request waits).
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const t0 = performance.now();
    const imported = await nest
      .get(SettlementsService)
      .importCsv({ appId: app.id, mode: 'LIVE' }, 'sandbox', csv);
    const importMs = performance.now() - t0;
    loop.disable();
    const t1 = performance.now();
    const run = await nest.get(ReconciliationService).run(PERIOD, { appId: app.id, mode: 'LIVE' });
    const runMs = performance.now() - t1;
    clearInterval(sampler);
    const result = {
      at: new Date().toISOString(),
      payments: PAYMENTS,
      csvLines: PAYMENTS,
      csvMb: +(csv.length / 1048576).toFixed(1),
      import: {
        seconds: +(importMs / 1000).toFixed(2),
        linesPerSecond: Math.round(PAYMENTS / (importMs / 1000)),
        imported: imported.imported,
        rejected: imported.rejected.length,
        loopDelayMs: {
          p99: +(loop.percentile(99) / 1e6).toFixed(1),
          max: +(loop.max / 1e6).toFixed(1),
        },
      },
      reconciliation: {
        seconds: +(runMs / 1000).toFixed(2),
        itemsPerSecond: Math.round((PAYMENTS * 2) / (runMs / 1000)),
        matched: run.matched,
        amountMismatch: run.amountMismatch,
        missingInternal: run.missingInternal,
        missingInSettlement: run.missingInSettlement,
        deferred: run.deferred,
        ledgerBalanced: run.ledgerBalanced,
      },
      peakRssMb: Math.round(peakRss / 1048576),
    };
    console.log(JSON.stringify(result, null, 2));
    writeFileSync(
      join(__dirname, 'report-reconciliation.json'),
      `${JSON.stringify(result, null, 2)}\n`,
    );
  } finally {
    await nest?.close();
    await db.end();
    await scratch.drop();
  }
}

void main();
