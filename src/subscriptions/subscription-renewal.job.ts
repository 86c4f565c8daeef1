import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../config/app-config';
import { SubscriptionsService } from './subscriptions.service';

export const RENEWAL_TICK_MS = 30_000;
const BATCH = 500;

/**
 * Every 30 s: trial warnings and ends, renewals, dunning and period-end
 * cancellations that have come due. Runs on every replica with workers
 * enabled; each subscription is claimed with FOR UPDATE SKIP LOCKED and
 * re-checked under its lock, so two replicas never bill one period twice.
 * Reads only the subscriptions that are due (partial index on next_action_at).
 */
@Injectable()
export class SubscriptionRenewalJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('SubscriptionRenewal');
  private running = false;

  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.workersEnabled) return;
    this.scheduler.addInterval(
      'subscription-renewal',
      setInterval(() => void this.tick(), RENEWAL_TICK_MS),
    );
  }

  /** One tick: batches until nothing is due. How many subscriptions were processed. */
  async tick(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let total = 0;
    try {
      for (;;) {
        const n = await this.subscriptions.runDueBatch(BATCH);
        total += n;
        if (n < BATCH) break;
      }
    } catch (err) {
      this.logger.error(`Subscription tick failed: ${(err as Error).message}`);
    } finally {
      this.running = false;
    }
    return total;
  }
}
