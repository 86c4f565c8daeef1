import { Injectable } from '@nestjs/common';

import { addDays, startOfDhakaDay } from '../common/clock/dhaka-calendar';
import { safeMinor } from '../common/money/exact-sum';
import { ReplicaReads } from '../database/replica-reads';
import type { TenantScope } from '../database/tenant';
import { PaymentsService } from '../payments';
import { LedgerRepository } from './ledger.repository';

/** One Asia/Dhaka day of the daily-collections report (decisions sections 15 and 20). */
export interface DailyCollection {
  date: string;
  collectedMinor: number;
  refundedMinor: number;
  netMinor: number;
  payments: number;
}

/**
 * What the dashboard's Overview draws (GET /reports/daily-collections): per
 * Asia/Dhaka day, gross collected (the payments' captures, from
 * PaymentsService), refunded (the ledger's refund postings, by when each
 * refund succeeded) and net. Here, in the ledger, because the ledger
 * already follows both payments and refunds (payments may not depend on it).
 */
@Injectable()
export class DailyCollectionsService {
  constructor(
    private readonly payments: PaymentsService,
    private readonly ledger: LedgerRepository,
    private readonly reads: ReplicaReads,
  ) {}

  /**
   * The last `days` days, today included, oldest first; a day without a
   * capture or refund is there with zeros. Sums are exact: a figure past
   * 2^53-1 is 422 AMOUNT_OUT_OF_RANGE naming the app.
   */
  async list(scope: TenantScope, days: number): Promise<DailyCollection[]> {
    // The Overview's figures: on the read replica once it has caught up (docs/operations.md).
    return this.reads.read(() => this.sums(scope, days));
  }

  private async sums(scope: TenantScope, days: number): Promise<DailyCollection[]> {
    const collected = await this.payments.dailyCollections(scope, days);
    // The very days the captures were summed over.
    const from = collected[0].date;
    const to = addDays(collected[collected.length - 1].date, 1);
    const refunded = new Map(
      (
        await this.ledger.refundedPerDhakaDay(
          scope,
          new Date(startOfDhakaDay(from)),
          new Date(startOfDhakaDay(to)),
        )
      ).map((d) => [d.date, d.refunded]),
    );
    return collected.map((d) => {
      const back = refunded.get(d.date) ?? 0n;
      const figure = (name: string, value: bigint) =>
        safeMinor(value, scope.appId, 'Daily collections', `${name} of ${d.date}`);
      return {
        date: d.date,
        collectedMinor: d.collectedMinor,
        refundedMinor: figure('refundedMinor', back),
        netMinor: figure('netMinor', BigInt(d.collectedMinor) - back),
        payments: d.payments,
      };
    });
  }
}
