import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { ClsModule } from 'nestjs-cls';

import { AppConfig } from '../config/app-config';
import { ChangeFeedModule } from './change-feed';
import { dataSourceOptions } from './data-source-options';
import { LanedTypeOrmAdapter, WorkerLane } from './worker-lane';

/**
 * TypeORM on PostgreSQL plus the one transaction mechanism: services use
 * `TransactionHost` (nestjs-cls), so everything a use case writes (its rows,
 * its outbox events, a stored idempotent response) joins one transaction.
 * Background workers run on connections of their own (`WorkerLane`).
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config.databaseUrl, {
          poolSize: config.dbPoolSize,
          statementTimeoutMs: config.dbStatementTimeoutMs,
          acquireTimeoutMs: config.dbAcquireTimeoutMs,
        }),
        autoLoadEntities: true,
      }),
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
  providers: [WorkerLane],
  exports: [WorkerLane],
})
export class DatabaseModule {}
