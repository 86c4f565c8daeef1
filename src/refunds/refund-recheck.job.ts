import { Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { IntervalJob } from '../common/jobs/interval-job';
import { AppConfig } from '../config/app-config';
import { RefundsService } from './refunds.service';

/**
 * With REFUND_CLAIM_MS (90 s), a trip a crash or a lost connection
 * interrupted is taken again within 110 s; a new automatic refund goes out
 * within 20 s (decisions section 13 as amended).
 */
export const REFUND_RECHECK_TICK_MS = 20_000;

/** Every 20 s: sends refunds free to go and asks gateways about those still processing (or never answered). */
@Injectable()
export class RefundRecheckJob extends IntervalJob<number> {
  protected readonly name = 'refund-recheck';
  protected readonly everyMs = REFUND_RECHECK_TICK_MS;

  constructor(
    private readonly refunds: RefundsService,
    scheduler: SchedulerRegistry,
    config: AppConfig,
  ) {
    super(scheduler, config);
  }

  protected work(): Promise<number> {
    return this.refunds.recheckPending();
  }
}
