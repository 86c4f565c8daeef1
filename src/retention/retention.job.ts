import { Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { AdminUsersService } from '../auth';
import { LoginThrottleService } from '../auth';
import { Clock } from '../common/clock/clock';
import { IntervalJob } from '../common/jobs/interval-job';
import { AppConfig } from '../config/app-config';
import { WebhookDeliveriesService } from '../webhooks';

const DAY_MS = 24 * 3600_000;

export interface RetentionResult {
  events: number;
  sessions: number;
  loginCounters: number;
}

/**
 * Storage that would otherwise grow without bound, pruned hourly through
 * each feature's own door: events and webhook deliveries older than
 * EVENT_RETENTION_DAYS (LIVE, default 90) or EVENT_RETENTION_DAYS_TEST (30),
 * ended admin sessions, stale login counters. Money records (payments,
 * invoices, refunds, ledger) and the audit log are never touched. A run
 * going at shutdown is waited for (IntervalJob).
 */
@Injectable()
export class RetentionJob extends IntervalJob<RetentionResult> {
  protected readonly name = 'retention';
  protected readonly everyMs = 3600_000;

  constructor(
    private readonly deliveries: WebhookDeliveriesService,
    private readonly users: AdminUsersService,
    private readonly throttle: LoginThrottleService,
    scheduler: SchedulerRegistry,
    config: AppConfig,
    private readonly clock: Clock,
  ) {
    super(scheduler, config);
  }

  /** One run now (tests, operators): what was deleted; throws when one is already running or it failed (logged). */
  async run(): Promise<RetentionResult> {
    const result = await this.tick();
    if (result === null) throw new Error(`${this.name}: not run (one was running, or it failed)`);
    return result;
  }

  protected async work(): Promise<RetentionResult> {
    const now = this.clock.nowMs();
    const events =
      (await this.deliveries.purgeBefore(
        'LIVE',
        new Date(now - this.config.eventRetentionDays * DAY_MS),
      )) +
      (await this.deliveries.purgeBefore(
        'TEST',
        new Date(now - this.config.eventRetentionDaysTest * DAY_MS),
      ));
    const sessions = await this.users.purgeEndedSessions();
    const loginCounters = await this.throttle.purgeStale();
    return { events, sessions, loginCounters };
  }
}
