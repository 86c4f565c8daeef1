// Node's libuv pool (4 threads by default) serves DNS lookups for webhook
// delivery and scrypt for admin logins; a few hosts whose DNS never answers
// must not starve it. Must be set before the pool is first used.
process.env.UV_THREADPOOL_SIZE ??= '16';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './bootstrap/configure-app';
import { nodeVersionWarning } from './bootstrap/node-version';
import { resolveConfig } from './bootstrap/resolve-config';
import { ConfigValidationError, validateEnv } from './config/env.schema';
import { runMigrations } from './database/migrate';

const say = (line: string) =>
  process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), msg: line })}\n`);

async function main(): Promise<void> {
  const oldNode = nodeVersionWarning(process.version);
  if (oldNode)
    process.stdout.write(`${JSON.stringify({ level: 40, time: Date.now(), msg: oldNode })}\n`);
  const env = validateEnv(process.env);
  const { config, embedded } = await resolveConfig(env, say);
  const applied = await runMigrations(config.databaseUrl);
  if (applied.length) say(`Applied migrations: ${applied.join(', ')}`);

  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
  });
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
  await app.listen(config.port, '0.0.0.0');
  say(`Joma listening on ${config.publicBaseUrl} (API docs at ${config.publicBaseUrl}/docs)`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigValidationError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(`Start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.exit(1);
});
