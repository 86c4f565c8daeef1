import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../config/app-config';
import { ReconciliationService } from './reconciliation.service';

export const NIGHTLY_CHECK_MS = 10 * 60_000;

/**
 * Every 10 minutes, on every replica with workers enabled (and
 * RECONCILIATION_NIGHTLY not false): once the previous Dhaka day is over,
 * one replica claims its run (a row per period, inserted once) and
 * reconciles every app and mode, pulling gateways' settlement reports first.
 */
@Injectable()
export class NightlyReconciliationJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('NightlyReconciliation');
  private running = false;

  constructor(
    private readonly reconciliation: ReconciliationService,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.workersEnabled || !this.config.reconciliationNightly) return;
    this.scheduler.addInterval(
      'nightly-reconciliation',
      setInterval(() => void this.tick(), NIGHTLY_CHECK_MS),
    );
  }

  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const run = await this.reconciliation.runNightly();
      if (run) this.logger.log(`Reconciled ${run.period}: run ${run.id}`);
    } catch (err) {
      this.logger.error(`Nightly reconciliation failed: ${(err as Error).message}`);
    } finally {
      this.running = false;
    }
  }
}
