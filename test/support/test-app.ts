import 'reflect-metadata';

import { createHash } from 'node:crypto';

import { DynamicModule, INestApplication, Module, Type } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Pool } from 'pg';
import request from 'supertest';

import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/bootstrap/configure-app';
import { createHttpApp } from '../../src/bootstrap/http-adapter';
import { buildOpenApiDocument } from '../../src/bootstrap/swagger';
import { ManualClock } from '../../src/common/clock/clock';
import { AppConfig } from '../../src/config/app-config';
import { conformance, OpenApiConformance } from './openapi-conformance';
import { createDatabase, databaseUrl, newDatabaseName } from './test-database';
import { perWorker } from './worker-cache';

export const SUPER_ADMIN = { email: 'root@joma.test', password: 'root-password-123' };

export interface TestApp {
  app: INestApplication;
  /** Real HTTP: supertest against the app listening on 127.0.0.1. */
  http: () => request.Agent;
  baseUrl: string;
  clock: ManualClock;
  /** A pool on the same database, for asserting on rows. */
  db: Pool;
  config: AppConfig;
  databaseUrl: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<ConstructorParameters<typeof AppConfig>[0]>;
  /**
   * A second instance on the same database. It shares this process with the
   * first, and `@Transactional` methods find nestjs-cls's process-wide
   * TransactionHost, which is the last-built app's: both instances' methods
   * then run their transactions on that app's pool. So this tests two apps'
   * HTTP and scheduling on one database, not two processes; what must hold
   * across real replicas is proven with child processes (child-replica.ts).
   */
  databaseUrl?: string;
  /** Extra test-only modules (controllers that provoke failures, latches), mounted beside the real app. */
  imports?: (Type<unknown> | DynamicModule)[];
}

/** Root of a test app with extra modules: the real AppModule plus the test's own. */
@Module({})
class TestRootModule {}

/**
 * The HTTP adapter the e2e suite runs on: Express, or Fastify in the
 * `e2e-fastify` Jest project (its `globals`) or with JOMA_TEST_HTTP_ADAPTER=fastify.
 */
export function testHttpAdapter(): 'express' | 'fastify' {
  const chosen =
    (globalThis as { JOMA_TEST_HTTP_ADAPTER?: string }).JOMA_TEST_HTTP_ADAPTER ??
    process.env.JOMA_TEST_HTTP_ADAPTER;
  return chosen === 'fastify' ? 'fastify' : 'express';
}

/** A fresh database cloned from the migrated template, and the real app on it. */
export async function createTestDatabase(label = 'file'): Promise<string> {
  const serverUrl = process.env.JOMA_TEST_SERVER_URL;
  const runId = process.env.JOMA_TEST_RUN_ID;
  const template = process.env.JOMA_TEST_TEMPLATE;
  if (!serverUrl || !runId || !template)
    throw new Error('Run e2e tests through jest (globalSetup prepares the database)');
  const name = newDatabaseName(
    runId,
    label
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 20) || 'file',
  );
  await createDatabase(serverUrl, name, template);
  return databaseUrl(serverUrl, name);
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const url = options.databaseUrl ?? (await createTestDatabase());
  const clock = new ManualClock();
  const config = new AppConfig({
    port: 0,
    databaseUrl: url,
    adminEmail: SUPER_ADMIN.email,
    adminPassword: SUPER_ADMIN.password,
    // Derived from the database, so replicas sharing one database share their secrets.
    jwtSecret: createHash('sha256').update(`jwt:${url}`).digest('hex'),
    encryptionKeyHex: createHash('sha256').update(`enc:${url}`).digest('hex'),
    workersEnabled: false,
    logLevel: 'silent',
    // Every test request comes from 127.0.0.1: a budget for failed logins per address.
    loginFailuresPerAddress: 10_000,
    // The suite creates hundreds of admins: scrypt at 2^14 keeps each under 60 ms.
    // login-security.e2e-spec.ts runs the default (2^17) and the upgrade at login.
    passwordScryptN: 16384,
    // Tests fire bursts from one address and app; test/e2e/rate-limits.e2e-spec.ts turns these on.
    rateLimitPerSecond: 0,
    publicRateLimitPerSecond: 0,
    webhookTestAllowedSchemes: ['http', 'https'],
    webhookAllowPrivateTargets: true,
    httpAdapter: testHttpAdapter(),
    ...options.config,
  });
  const root: DynamicModule = options.imports?.length
    ? {
        module: TestRootModule,
        imports: [AppModule.forRoot(config, { clock }), ...options.imports],
      }
    : AppModule.forRoot(config, { clock });
  const app = await createHttpApp(root, config, { logger: false });
  // The OpenAPI document is built once per worker process for apps of the same
  // modules and public URL (test/e2e/openapi-document.e2e-spec.ts checks a
  // fresh build of the document); an app with extra test modules builds its own.
  configureApp(app, {
    openApiDocument: options.imports?.length
      ? undefined
      : perWorker(`openapi-document:${config.httpAdapter}:${config.publicBaseUrl}`, () =>
          buildOpenApiDocument(app),
        ),
  });
  // Every response is checked against the served OpenAPI document (openapi-conformance.ts).
  // (Set once the document is served; until then nothing is checked.)
  const check: { middleware?: ReturnType<OpenApiConformance['middleware']> } = {};
  app.use((req: Request, res: Response, next: NextFunction) =>
    check.middleware ? check.middleware(req, res, next) : next(),
  );
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  (config as { publicBaseUrl: string }).publicBaseUrl = baseUrl;
  const checker = new OpenApiConformance(
    (await (await fetch(`${baseUrl}/docs-json`)).json()) as Record<string, unknown>,
  );
  check.middleware = checker.middleware();
  conformance.push(checker);
  const db = new Pool({ connectionString: url, max: 4 });
  return {
    app,
    // As a reader's English browser asks (a request may set its own, or unset it):
    // the hosted pages otherwise speak the app's defaultLanguage, Bangla unless set.
    http: () => request.agent(baseUrl).set('Accept-Language', 'en'),
    baseUrl,
    clock,
    db,
    config,
    databaseUrl: url,
    async close() {
      await db.end();
      await app.close();
      conformance.splice(conformance.indexOf(checker), 1);
    },
  };
}
