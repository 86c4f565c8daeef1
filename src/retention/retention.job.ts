import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { AdminUsersService } from '../auth';
import { LoginThrottleService } from '../auth';
import { Clock } from '../common/clock/clock';
import { AppConfig } from '../config/app-config';
import { WebhookDeliveriesService } from '../webhooks';

const DAY_MS = 24 * 3600_000;

/**
 * Storage that would otherwise grow without bound, pruned hourly through
 * each feature's own door: events and webhook deliveries older than
 * EVENT_RETENTION_DAYS (LIVE, default 90) or EVENT_RETENTION_DAYS_TEST (30),
 * ended admin sessions, stale login counters. Money records (payments,
 * invoices, refunds, ledger) and the audit log are never touched.
 */
@Injectable()
export class RetentionJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('Retention');

  constructor(
    private readonly deliveries: WebhookDeliveriesService,
    private readonly users: AdminUsersService,
    private readonly throttle: LoginThrottleService,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.workersEnabled) return;
    this.scheduler.addInterval(
      'retention',
      setInterval(
        () => void this.run().catch(() => this.logger.error('retention failed')),
        3600_000,
      ),
    );
  }

  async run(): Promise<{ events: number; sessions: number; loginCounters: number }> {
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
