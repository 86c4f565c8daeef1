import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { getDataSourceToken, InjectDataSource } from '@nestjs/typeorm';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService, ClsServiceManager } from 'nestjs-cls';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { JomaDataSource } from './data-source-options';
import { poolOf } from './hot-query';
import { withStartupRetry } from './startup-retry';

/** The CLS key naming the data source of the code running now (absent: the API's). */
const LANE = Symbol('joma-worker-lane');

/**
 * The one transactional adapter (TypeORM's), on the data source of the lane
 * the code runs in: the API's pool, or the workers' own connections
 * inside `WorkerLane.run`. Repositories and services are the same on both
 * lanes; only where their connection comes from differs.
 */
export class LanedTypeOrmAdapter extends TransactionalAdapterTypeOrm {
  constructor() {
    super({ dataSourceToken: getDataSourceToken() });
    const onSource = this.optionsFactory;
    this.optionsFactory = (main: DataSource) => {
      const byLane = new Map<DataSource, ReturnType<typeof onSource>>();
      const current = () => {
        const source =
          (ClsServiceManager.getClsService().get(LANE) as DataSource | undefined) ?? main;
        let options = byLane.get(source);
        if (!options) byLane.set(source, (options = onSource(source)));
        return options;
      };
      return {
        wrapWithTransaction: (options, fn, setTx) =>
          current().wrapWithTransaction(options, fn, setTx),
        wrapWithNestedTransaction: (options, fn, setTx, tx) =>
          current().wrapWithNestedTransaction(options, fn, setTx, tx),
        getFallbackInstance: () => current().getFallbackInstance(),
      };
    };
  }
}

/**
 * Runs `fn`, and everything it starts, with `source` as the data source of
 * `TransactionHost` (its `tx` outside a transaction is `source.manager`;
 * a transaction opened inside opens on `source`). `ifNested`: 'override'
 * starts from an empty context (the workers), 'inherit' keeps the request's
 * (the replica reads).
 */
export function onSource<T>(
  cls: ClsService,
  source: DataSource,
  fn: () => Promise<T>,
  ifNested: 'override' | 'inherit',
): Promise<T> {
  return cls.run({ ifNested }, () => {
    cls.set(LANE, source);
    return fn();
  });
}

/**
 * Connections of the background workers (webhook fan-out and delivery), a
 * pool of DB_WORKER_POOL_SIZE beside the API's DB_POOL_SIZE. Under API load
 * every pooled connection is taken and requests queue for one; a claim or an
 * attempt record queued behind them waited ~20 ms each, which was most of a
 * webhook's commit-to-delivery time (bench/README.md, "Worker lane"). On their own lane the
 * workers never wait behind requests, nor requests behind them. Size 0 puts
 * the workers on the API's pool.
 */
@Injectable()
export class WorkerLane implements OnApplicationShutdown {
  private readonly logger = new Logger(WorkerLane.name);
  private source: DataSource | null = null;
  private opening: Promise<void> | null = null;

  constructor(
    @InjectDataSource() private readonly main: DataSource,
    private readonly cls: ClsService,
    private readonly config: AppConfig,
  ) {}

  /** Opens the lane's pool (once; later calls wait for the first). */
  open(): Promise<void> {
    if (this.config.dbWorkerPoolSize === 0) return Promise.resolve();
    this.opening ??= (async () => {
      const options = this.main.options as typeof this.main.options & {
        extra?: Record<string, unknown>;
      };
      const lane = {
        ...options,
        extra: {
          ...options.extra,
          max: this.config.dbWorkerPoolSize,
          application_name: 'joma-workers',
        },
      } as typeof this.main.options;
      // Opened at start-up: a database refusing or dropping connections is waited for, as for the pool.
      this.source = await withStartupRetry(
        'Worker connections',
        () => new JomaDataSource(lane).initialize(),
        { budgetMs: this.config.dbConnectRetryMs, warn: (msg) => this.logger.warn(msg) },
      );
    })().catch((err: Error) => {
      this.opening = null;
      this.logger.error(`worker connections failed to open: ${err.message}`);
      throw err;
    });
    return this.opening;
  }

  /** The lane's pool, once open (for its metrics). */
  get pool(): Pool | null {
    return this.source ? poolOf(this.source) : null;
  }

  /** Runs `fn`, and everything it starts, on the lane (on the API's pool until `open` finished). */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const source = this.source;
    if (!source) return fn();
    return onSource(this.cls, source, fn, 'override');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.opening?.catch(() => undefined);
    const source = this.source;
    this.source = null;
    this.opening = null;
    if (source?.isInitialized) await source.destroy();
  }
}
