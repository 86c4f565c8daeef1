import { Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { IntervalJob } from '../common/jobs/interval-job';
import { AppConfig } from '../config/app-config';
import { SubscriptionsService } from './subscriptions.service';

export const RENEWAL_TICK_MS = 30_000;
const BATCH = 500;

/**
 * Every 30 s: trial warnings and ends, renewals, dunning and period-end
 * cancellations that have come due. Each subscription is claimed with FOR
 * UPDATE SKIP LOCKED and re-checked under its lock, so two replicas never
 * bill one period twice. Reads only the subscriptions that are due (partial
 * index on next_action_at).
 */
@Injectable()
export class SubscriptionRenewalJob extends IntervalJob<number> {
  protected readonly name = 'subscription-renewal';
  protected readonly everyMs = RENEWAL_TICK_MS;

  constructor(
    private readonly subscriptions: SubscriptionsService,
    scheduler: SchedulerRegistry,
    config: AppConfig,
  ) {
    super(scheduler, config);
  }

  /** Batches until nothing is due; how many subscriptions were processed. */
  protected async work(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.subscriptions.runDueBatch(BATCH);
      total += n;
      if (n < BATCH) return total;
    }
  }
}
