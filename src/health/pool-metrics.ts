import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Counter, Gauge } from 'prom-client';
import { DataSource } from 'typeorm';

import { Metrics } from '../common/metrics/metrics';
import { poolOf } from '../database/hot-query';
import { ReplicaReads } from '../database/replica-reads';
import { WorkerLane } from '../database/worker-lane';

/**
 * `joma_db_pool_connections{pool,state}`, read at each scrape: the API's pool
 * (`api`, DB_POOL_SIZE) and the workers' (`workers`, DB_WORKER_POOL_SIZE,
 * once open), each `total`, `idle`, and `waiting` (callers queued for a
 * connection: if it is often above 0, the pool is too small for the load);
 * the read replica's (`read`, DB_READ_POOL_SIZE) when DATABASE_READ_URL is set.
 * `joma_db_replica_reads_total{served_by}`: reads meant for the replica, by
 * where they ran (`replica`, or `primary:lagging`, `primary:unavailable`,
 * `primary:in_transaction`).
 */
@Injectable()
export class PoolMetrics {
  constructor(
    metrics: Metrics,
    @InjectDataSource() main: DataSource,
    lane: WorkerLane,
    reads: ReplicaReads,
  ) {
    new Gauge({
      name: 'joma_db_pool_connections',
      help: 'Pooled database connections by pool (api, workers, read) and state (total, idle, waiting: callers queued for one)',
      labelNames: ['pool', 'state'],
      registers: [metrics.registry],
      collect() {
        const pools = [
          ['api', main.isInitialized ? poolOf(main) : null],
          ['workers', lane.pool],
          ['read', reads.pool],
        ] as const;
        for (const [pool, p] of pools) {
          if (!p) continue;
          this.set({ pool, state: 'total' }, p.totalCount);
          this.set({ pool, state: 'idle' }, p.idleCount);
          this.set({ pool, state: 'waiting' }, p.waitingCount);
        }
      },
    });
    new Counter({
      name: 'joma_db_replica_reads_total',
      help: 'Reads meant for the read replica (lists, exports, daily figures) by where they ran: replica, or primary:lagging, primary:unavailable, primary:in_transaction',
      labelNames: ['served_by'],
      registers: [metrics.registry],
      collect() {
        // The running totals ReplicaReads keeps, copied at each scrape.
        this.reset();
        for (const [servedBy, n] of reads.served) this.inc({ served_by: servedBy }, n);
      },
    });
  }
}
