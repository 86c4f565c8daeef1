import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../config/app-config';
import { RefundsService } from './refunds.service';

export const REFUND_RECHECK_TICK_MS = 60_000;

/** Every minute: asks gateways about refunds they are still processing (or never answered). */
@Injectable()
export class RefundRecheckJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('RefundRecheck');
  private running = false;

  constructor(
    private readonly refunds: RefundsService,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.workersEnabled) return;
    this.scheduler.addInterval(
      'refund-recheck',
      setInterval(() => void this.tick(), REFUND_RECHECK_TICK_MS),
    );
  }

  async tick(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      return await this.refunds.recheckPending();
    } catch (err) {
      this.logger.error(`Refund re-check failed: ${(err as Error).message}`);
      return 0;
    } finally {
      this.running = false;
    }
  }
}
