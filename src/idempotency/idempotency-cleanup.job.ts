import { Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { IntervalJob } from '../common/jobs/interval-job';
import { AppConfig } from '../config/app-config';
import { IdempotencyService } from './idempotency.service';

const BATCH = 5000;

/**
 * Deletes idempotency keys past their 24 h, a bounded batch at a time,
 * hourly. A run going at shutdown is waited for (IntervalJob).
 */
@Injectable()
export class IdempotencyCleanupJob extends IntervalJob<number> {
  protected readonly name = 'idempotency-cleanup';
  protected readonly everyMs = 60 * 60_000;

  constructor(
    private readonly keys: IdempotencyService,
    scheduler: SchedulerRegistry,
    config: AppConfig,
  ) {
    super(scheduler, config);
  }

  /** One run now (tests, operators): how many keys were deleted; throws when one is already running or it failed (logged). */
  async run(): Promise<number> {
    const deleted = await this.tick();
    if (deleted === null) throw new Error(`${this.name}: not run (one was running, or it failed)`);
    return deleted;
  }

  protected async work(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.keys.deleteExpired(BATCH);
      total += n;
      if (n < BATCH) return total;
    }
  }
}
