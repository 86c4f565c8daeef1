import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { Clock } from '../common/clock/clock';
import { IntervalJob } from '../common/jobs/interval-job';
import { AppConfig } from '../config/app-config';
import { EmailChannel } from './channels/email-channel';
import { SendError } from './channels/send-error';
import { SMS_PROVIDER, type SmsProvider } from './channels/sms-channel';
import { type Notification, NOTIFICATION_CHANNELS } from './notification.entity';
import { NotificationMetrics } from './notification-metrics';
import { NotificationsRepository } from './notifications.repository';
import { SmsCredentialsService } from './sms-credentials.service';

/** After the first try: 1 and 5 minutes, 30 minutes, 2, 6, 12 and 24 hours; then FAILED (decisions 16). */
export const RETRY_AFTER_FIRST_TRY_MS = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  6 * 3600_000,
  12 * 3600_000,
  24 * 3600_000,
] as const;
/** How long a claimed message is the claimant's: longer than any send may take. */
export const SEND_LEASE_MS = 60_000;
const BATCH = 50;

export interface NotificationTick {
  sent: number;
  retrying: number;
  failed: number;
  abandoned: number;
}

/**
 * Sends the QUEUED messages after their facts committed. A message is
 * claimed (FOR UPDATE SKIP LOCKED, a lease, the try counted) in a short
 * transaction of its own, sent with no transaction open, and its outcome
 * recorded only while the claim holds. A sender that stopped mid-send
 * leaves a claim that runs out with no outcome: that message is never sent
 * again (FAILED, outcome unknown), so no payer gets one twice, across
 * replicas and crashes. Temporary failures are tried again on
 * RETRY_AFTER_FIRST_TRY_MS, counted from the message's first try.
 */
@Injectable()
export class NotificationWorker extends IntervalJob<NotificationTick> {
  protected readonly name = 'notifications';
  protected readonly everyMs: number;

  constructor(
    private readonly repo: NotificationsRepository,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly email: EmailChannel,
    private readonly sms: SmsCredentialsService,
    @Inject(SMS_PROVIDER) private readonly smsProvider: SmsProvider,
    private readonly metrics: NotificationMetrics,
    private readonly clock: Clock,
    scheduler: SchedulerRegistry,
    config: AppConfig,
  ) {
    super(scheduler, config);
    this.everyMs = config.notificationPollIntervalMs;
  }

  protected async work(): Promise<NotificationTick> {
    const out: NotificationTick = { sent: 0, retrying: 0, failed: 0, abandoned: 0 };
    out.abandoned = await this.txHost.withTransaction(() => this.repo.abandon(this.clock.now()));
    for (;;) {
      const claimedAt = this.clock.now();
      const batch = await this.txHost.withTransaction(() =>
        this.repo.claimDue(claimedAt, new Date(claimedAt.getTime() + SEND_LEASE_MS), BATCH),
      );
      for (const message of batch) {
        const outcome = await this.sendOne(message, claimedAt);
        out[outcome]++;
      }
      if (batch.length < BATCH) break;
    }
    const queued = await this.txHost.withTransaction(() => this.repo.queuedByChannel());
    for (const channel of NOTIFICATION_CHANNELS)
      this.metrics.queued.labels(channel).set(queued.find((q) => q.channel === channel)?.n ?? 0);
    return out;
  }

  private async sendOne(m: Notification, claimedAt: Date): Promise<'sent' | 'retrying' | 'failed'> {
    const id = Number(m.id);
    const channel = m.channel;
    try {
      if (channel === 'EMAIL') {
        await this.email.send({
          to: m.recipient,
          subject: m.subject ?? '',
          text: m.bodyText,
          html: m.bodyHtml ?? '',
          id: `notification-${id}`,
        });
      } else {
        const scope = { appId: Number(m.appId), mode: m.mode };
        const credentials = await this.sms.get(scope, this.smsProvider.name);
        if (!credentials) throw new SendError('The SMS credentials were removed', false);
        await this.smsProvider.send(credentials, m.recipient, m.bodyText, `joma-${id}`);
      }
    } catch (err) {
      const e = err instanceof SendError ? err : new SendError((err as Error).message, true);
      const retryAt = this.retryAt(m);
      if (e.temporary && retryAt) {
        await this.record(id, claimedAt, {
          status: 'QUEUED',
          error: e.message,
          nextAttemptAt: retryAt,
        });
        return 'retrying';
      }
      await this.record(id, claimedAt, { status: 'FAILED', error: e.message });
      this.metrics.messages.labels(channel, 'FAILED').inc();
      return 'failed';
    }
    await this.record(id, claimedAt, { status: 'SENT', at: this.clock.now() });
    this.metrics.messages.labels(channel, 'SENT').inc();
    return 'sent';
  }

  /** When to try again after this try (`attempts` counts it), or null when the schedule is over. */
  private retryAt(m: Notification): Date | null {
    const offset = RETRY_AFTER_FIRST_TRY_MS[m.attempts - 1];
    if (offset === undefined) return null;
    const firstTry = new Date(m.createdAt).getTime();
    return new Date(Math.max(firstTry + offset, this.clock.nowMs()));
  }

  private record(
    id: number,
    claimedAt: Date,
    outcome: Parameters<NotificationsRepository['record']>[2],
  ): Promise<number> {
    return this.txHost.withTransaction(() => this.repo.record(id, claimedAt, outcome));
  }
}
