import { DynamicModule, Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { ClsModule } from 'nestjs-cls';
import { type DataSourceOptions } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { ChangeFeedModule } from './change-feed';
import { dataSourceOptions, JomaDataSource } from './data-source-options';
import { ReplicaReads } from './replica-reads';
import { sessionSettingsWarning } from './session-settings';
import { withStartupRetry } from './startup-retry';
import { LanedTypeOrmAdapter, WorkerLane } from './worker-lane';

/**
 * TypeORM on PostgreSQL plus the one transaction mechanism: services use
 * `TransactionHost` (nestjs-cls), so everything a use case writes (its rows,
 * its outbox events, a stored idempotent response) joins one transaction.
 * Background workers run on connections of their own (`WorkerLane`).
 *
 * The pool's first connection is retried as start-up retries everything that
 * needs the database (`withStartupRetry`, within DB_CONNECT_RETRY_MS);
 * @nestjs/typeorm's own retry (ten tries, 3 s apart, logged as errors) is off.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig): DynamicModule {
    const logger = new Logger('Database');
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...dataSourceOptions(config.databaseUrl, {
              poolSize: config.dbPoolSize,
              statementTimeoutMs: config.dbStatementTimeoutMs,
              acquireTimeoutMs: config.dbAcquireTimeoutMs,
              preparedStatements: config.dbPreparedStatements,
            }),
            autoLoadEntities: true,
            toRetry: () => false,
          }),
          dataSourceFactory: async (options?: DataSourceOptions) => {
            const source = await withStartupRetry(
              'Connection pool',
              () => new JomaDataSource(options!).initialize(),
              { budgetMs: config.dbConnectRetryMs, warn: (msg) => logger.warn(msg) },
            );
            // Behind a pooler that drops the connection options, say which guard rails are off.
            const off = await sessionSettingsWarning(source, config.dbStatementTimeoutMs);
            if (off) logger.warn(off);
            return source;
          },
        }),
        ClsModule.forRoot({
          global: true,
          // Each request's context opens in the middleware; `saveReq`: the audit log
          // reads who acted (and from where) from the request.
          middleware: { mount: true, saveReq: true },
          plugins: [
            new ClsPluginTransactional({
              imports: [TypeOrmModule],
              adapter: new LanedTypeOrmAdapter(),
              enableTransactionProxy: false,
            }),
          ],
        }),
        ChangeFeedModule,
      ],
      providers: [WorkerLane, ReplicaReads],
      exports: [WorkerLane, ReplicaReads],
    };
  }
}
