import { Module } from '@nestjs/common';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsModule } from 'nestjs-cls';
import { AppConfig } from '../config/app-config';
import { ChangeFeedModule } from './change-feed';
import { dataSourceOptions } from './data-source-options';

/**
 * TypeORM on PostgreSQL plus the one transaction mechanism: services use
 * `TransactionHost` (nestjs-cls), so everything a use case writes (its rows,
 * its outbox events, a stored idempotent response) joins one transaction.
 */
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
      // saveReq: the audit log reads who acted (and from where) from the request.
      middleware: { mount: true, saveReq: true },
      plugins: [
        new ClsPluginTransactional({
          imports: [TypeOrmModule],
          adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
          enableTransactionProxy: false,
        }),
      ],
    }),
    ChangeFeedModule,
  ],
})
export class DatabaseModule {}
