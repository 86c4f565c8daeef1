import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';

import { Metrics } from '../common/metrics/metrics';
import { poolOf } from '../database/hot-query';
import { WorkerLane } from '../database/worker-lane';

/**
 * `joma_db_pool_connections{pool,state}`, read at each scrape: the API's pool
 * (`api`, DB_POOL_SIZE) and the workers' (`workers`, DB_WORKER_POOL_SIZE,
 * once open), each `total`, `idle`, and `waiting` (callers queued for a
 * connection: if it is often above 0, the pool is too small for the load).
 */
@Injectable()
export class PoolMetrics {
  constructor(metrics: Metrics, @InjectDataSource() main: DataSource, lane: WorkerLane) {
    new Gauge({
      name: 'joma_db_pool_connections',
      help: 'Pooled database connections by pool (api, workers) and state (total, idle, waiting: callers queued for one)',
      labelNames: ['pool', 'state'],
      registers: [metrics.registry],
      collect() {
        const pools = [
          ['api', main.isInitialized ? poolOf(main) : null],
          ['workers', lane.pool],
        ] as const;
        for (const [pool, p] of pools) {
          if (!p) continue;
          this.set({ pool, state: 'total' }, p.totalCount);
          this.set({ pool, state: 'idle' }, p.idleCount);
          this.set({ pool, state: 'waiting' }, p.waitingCount);
        }
      },
    });
  }
}
