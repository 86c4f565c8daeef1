import 'reflect-metadata';

import { createHash } from 'node:crypto';

import {
  type DynamicModule,
  type INestApplicationContext,
  Module,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Pool } from 'pg';

import { AppModule } from '../../src/app.module';
import { ManualClock } from '../../src/common/clock/clock';
import { AppConfig } from '../../src/config/app-config';
import { createTestDatabase, SUPER_ADMIN } from './test-app';

/** The medium tier: the real app's services on a cloned database, with no HTTP server. */
export interface TestContext {
  app: INestApplicationContext;
  clock: ManualClock;
  db: Pool;
  /** The cloned database's URL (for tests that need sessions of their own). */
  url: string;
  close(): Promise<void>;
}

/** Root of a context with extra modules: the real AppModule plus the test's own. */
@Module({})
class TestContextRootModule {}

/**
 * `config`: settings beyond the defaults (a gateway's base URL, say);
 * `imports`: test-only modules mounted beside the real app (a test gateway).
 */
export async function createTestContext(
  settings: Partial<ConstructorParameters<typeof AppConfig>[0]> = {},
  imports: (Type<unknown> | DynamicModule)[] = [],
): Promise<TestContext> {
  const url = await createTestDatabase('medium');
  const clock = new ManualClock();
  const config = new AppConfig({
    port: 0,
    databaseUrl: url,
    adminEmail: SUPER_ADMIN.email,
    adminPassword: SUPER_ADMIN.password,
    jwtSecret: createHash('sha256').update(`jwt:${url}`).digest('hex'),
    encryptionKeyHex: createHash('sha256').update(`enc:${url}`).digest('hex'),
    workersEnabled: false,
    logLevel: 'silent',
    ...settings,
  });
  const root: DynamicModule = imports.length
    ? {
        module: TestContextRootModule,
        imports: [AppModule.forRoot(config, { clock }), ...imports],
      }
    : AppModule.forRoot(config, { clock });
  const app = await NestFactory.createApplicationContext(root, { logger: false });
  await app.init();
  const db = new Pool({ connectionString: url, max: 4 });
  return {
    app,
    clock,
    db,
    url,
    async close() {
      await db.end();
      await app.close();
    },
  };
}

/** An app row straight in the database (the medium tier has no admin API to call). */
export async function insertApp(db: Pool, name = 'Medium app'): Promise<number> {
  const { rows } = await db.query(`INSERT INTO apps (name) VALUES ($1) RETURNING id`, [name]);
  return Number(rows[0].id);
}
