import { Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { IntervalJob } from '../common/jobs/interval-job';
import { AppConfig } from '../config/app-config';
import { PaymentConfirmationsService } from './payment-confirmations.service';

export const EXPIRY_SWEEP_MS = 15_000;

/**
 * Moves due PENDING payments to EXPIRED every 15 s, and asks about
 * cancelled checkouts the gateway did not confirm closed. Runs on every replica
 * with workers enabled; each batch is claimed with a lease, so replicas
 * share the work and never expire one payment twice. A sweep running at
 * shutdown is waited for (IntervalJob).
 */
@Injectable()
export class PaymentExpiryJob extends IntervalJob<number> {
  protected readonly name = 'payment-expiry';
  protected readonly everyMs = EXPIRY_SWEEP_MS;

  constructor(
    private readonly confirmations: PaymentConfirmationsService,
    scheduler: SchedulerRegistry,
    config: AppConfig,
  ) {
    super(scheduler, config);
  }

  /** One sweep now (tests, operators): how many payments were handled; 0 while one is running or when it failed. */
  async sweep(): Promise<number> {
    return (await this.tick()) ?? 0;
  }

  /** Batches until nothing is due. */
  protected async work(): Promise<number> {
    let total = 0;
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
    return total;
  }
}
