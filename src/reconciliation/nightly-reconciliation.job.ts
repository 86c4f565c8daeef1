import { Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { IntervalJob } from '../common/jobs/interval-job';
import { AppConfig } from '../config/app-config';
import type { RunRow } from './reconciliation.repository';
import { ReconciliationService } from './reconciliation.service';

export const NIGHTLY_CHECK_MS = 10 * 60_000;

/**
 * Every 10 minutes, on every replica with workers enabled (and
 * RECONCILIATION_NIGHTLY not false): once the previous Dhaka day is over,
 * one replica claims its run (a row per period, inserted once) and
 * reconciles every app and mode, pulling gateways' settlement reports first.
 */
@Injectable()
export class NightlyReconciliationJob extends IntervalJob<RunRow | null> {
  protected readonly name = 'nightly-reconciliation';
  protected readonly everyMs = NIGHTLY_CHECK_MS;

  constructor(
    private readonly reconciliation: ReconciliationService,
    scheduler: SchedulerRegistry,
    config: AppConfig,
  ) {
    super(scheduler, config);
  }

  protected override enabled(): boolean {
    return this.config.workersEnabled && this.config.reconciliationNightly;
  }

  protected work(): Promise<RunRow | null> {
    return this.reconciliation.runNightly();
  }
}
