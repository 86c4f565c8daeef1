import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { AppConfig } from '../config/app-config';
import { IdempotencyService } from './idempotency.service';

/** Deletes idempotency keys past their 24 h, a bounded batch at a time, hourly. */
@Injectable()
export class IdempotencyCleanupJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('IdempotencyCleanup');

  constructor(
    private readonly keys: IdempotencyService,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
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
      const n = await this.keys.deleteExpired(batch);
      total += n;
      if (n < batch) return total;
    }
  }
}
