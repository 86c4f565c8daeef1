import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { AppConfig } from '../config/app-config';
import { PaymentConfirmationsService } from './payment-confirmations.service';

export const EXPIRY_SWEEP_MS = 15_000;

/**
 * Moves due PENDING payments to EXPIRED every 15 s, and asks about
 * cancelled checkouts the gateway did not confirm closed. Runs on every replica
 * with workers enabled; each batch is claimed with a lease, so replicas
 * share the work and never expire one payment twice.
 */
@Injectable()
export class PaymentExpiryJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('PaymentExpiry');
  private running = false;

  constructor(
    private readonly confirmations: PaymentConfirmationsService,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.workersEnabled) return;
    this.scheduler.addInterval(
      'payment-expiry',
      setInterval(() => void this.sweep(), EXPIRY_SWEEP_MS),
    );
  }

  /** One sweep: batches until nothing is due. Returns how many payments were handled. */
  async sweep(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let total = 0;
    try {
      for (;;) {
        const n = await this.confirmations.expireDue(100);
        total += n;
        if (n < 100) break;
      }
      // Cancelled checkouts the gateway did not confirm closed (decisions 13): asked like PENDING ones.
      for (;;) {
        const n = await this.confirmations.recheckCancelled(100);
        total += n;
        if (n < 100) break;
      }
    } catch (err) {
      this.logger.error(`Expiry sweep failed: ${(err as Error).name}`);
    } finally {
      this.running = false;
    }
    return total;
  }
}
