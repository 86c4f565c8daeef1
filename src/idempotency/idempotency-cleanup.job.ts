import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Clock } from '../common/clock/clock';
import { AppConfig } from '../config/app-config';

/** Deletes idempotency keys past their 24 h, a bounded batch at a time, hourly. */
@Injectable()
export class IdempotencyCleanupJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('IdempotencyCleanup');

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.workersEnabled) return;
    this.scheduler.addInterval(
      'idempotency-cleanup',
      setInterval(
        () => void this.run().catch(() => this.logger.error('cleanup failed')),
        60 * 60_000,
      ),
    );
  }

  async run(batch = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const res: [unknown[], number] = await this.txHost.tx.query(
        `DELETE FROM idempotency_keys WHERE id IN (SELECT id FROM idempotency_keys WHERE expires_at < $1 LIMIT $2)`,
        [this.clock.now(), batch],
      );
      const n = res[1] ?? 0;
      total += n;
      if (n < batch) return total;
    }
  }
}
