// Node's libuv pool (4 threads by default) serves DNS lookups for webhook
// delivery and scrypt for admin logins; a few hosts whose DNS never answers
// must not starve it. Must be set before the pool is first used.
process.env.UV_THREADPOOL_SIZE ??= '16';
import 'reflect-metadata';

import { AppModule } from './app.module';
import { AdminBootstrapService } from './auth/admin-bootstrap.service';
import { configureApp } from './bootstrap/configure-app';
import { createHttpApp } from './bootstrap/http-adapter';
import { nodeVersionWarning } from './bootstrap/node-version';
import { resolveConfig } from './bootstrap/resolve-config';
import { describeStartupError } from './bootstrap/startup-errors';
import { startupLog } from './bootstrap/startup-log';
import { validateEnv } from './config/env.schema';
import { runMigrations } from './database/migrate';
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
  const { config, embedded } = await resolveConfig(env, log.info);
  known.stopEmbedded = embedded?.stop;
  log.info(
    embedded
      ? `Database: embedded PostgreSQL ready (files in ${embedded.clusterDir})`
      : `Database: ${new URL(config.databaseUrl).host}${new URL(config.databaseUrl).pathname} (DATABASE_URL)`,
  );
  const applied = await runMigrations(config.databaseUrl);
  log.info(
    applied.length
      ? `Migrations: applied ${applied.length} (${applied.join(', ')})`
      : 'Migrations: up to date',
  );

  const app = await createHttpApp(AppModule.forRoot(config), config, { bufferLogs: true });
  configureApp(app);
  if (embedded) {
    // One shutdown path: close the app (workers, pool), then the embedded server.
    const stop = async () => {
      await app.close().catch(() => undefined);
      await embedded.stop().catch(() => undefined);
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } else {
    app.enableShutdownHooks(['SIGINT', 'SIGTERM']);
  }
  await app.listen(config.port, config.host);
  const server = config.httpAdapter === 'fastify' ? ' (Fastify)' : '';
  log.info(`Listening on ${config.host}:${config.port}${server}: ${config.publicBaseUrl}`);
  log.info(
    `API docs: ${config.publicBaseUrl}/docs (OpenAPI JSON at ${config.publicBaseUrl}/docs-json)`,
  );
  const metrics = app.get(MetricsServer).address;
  if (metrics) log.info(`Metrics: ${metrics} (not on the public port)`);
  const admin = app.get(AdminBootstrapService);
  if (admin.statusIsWarning) log.warn(admin.status);
  else log.info(admin.status);
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
