import { Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { IntervalJob } from '../common/jobs/interval-job';
import { AppConfig } from '../config/app-config';
import { RefundsService } from './refunds.service';

export const REFUND_RECHECK_TICK_MS = 60_000;

/** Every minute: asks gateways about refunds they are still processing (or never answered). */
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
