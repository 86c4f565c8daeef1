import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { Clock } from '../common/clock/clock';
import { IntervalJob } from '../common/jobs/interval-job';
import { AppConfig } from '../config/app-config';
import { EmailChannel } from './channels/email-channel';
import { SendError } from './channels/send-error';
import { SMS_PROVIDER, smsClientId, type SmsProvider } from './channels/sms-channel';
import { type Notification, NOTIFICATION_CHANNELS } from './notification.entity';
import { NotificationMetrics } from './notification-metrics';
import { NotificationsRepository, OUTCOME_UNKNOWN } from './notifications.repository';
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
/**
 * How long a claim holds before the message is handed over: a worker that
 * stopped before handing it over leaves it to another within this lease
 * and a poll interval (decisions 16: within 2 minutes).
 */
export const SEND_LEASE_MS = 60_000;
/**
 * How long a handed-over message stays its sender's: longer than any send
 * takes (the SMTP client's 60 s timeouts, each phase of the conversation);
 * past it with no outcome, the sender stopped: FAILED, outcome unknown.
 */
export const HANDED_OVER_LEASE_MS = 15 * 60_000;
const BATCH = 50;

export interface NotificationTick {
  sent: number;
  retrying: number;
  failed: number;
  abandoned: number;
}

/**
 * Sends the QUEUED messages after their facts committed, at most once. A
 * message is claimed (FOR UPDATE SKIP LOCKED, a 60-second lease) in a short
 * transaction of its own; just before the network call the worker commits
 * that it hands it over (the try counted, the lease lengthened); it is sent
 * with no transaction open and its outcome recorded only while the claim
 * holds. A claim that runs out before the hand-over is taken by another
 * worker (nothing went out). A message handed over whose outcome is unknown
 * (a timeout or a lost connection after the hand-over, or a sender that
 * stopped before recording) is never sent again: FAILED, outcome unknown,
 * so no payer gets one twice, across replicas and crashes. The one
 * exception is an SMS provider that refuses a repeated message id: there
 * asking again under the same id cannot send twice, and its "duplicate"
 * answer says the first was accepted. Temporary failures are tried again
 * on RETRY_AFTER_FIRST_TRY_MS, counted from the message's first try.
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
        if (outcome) out[outcome]++;
      }
      if (batch.length < BATCH) break;
    }
    const queued = await this.txHost.withTransaction(() => this.repo.queuedByChannel());
    for (const channel of NOTIFICATION_CHANNELS)
      this.metrics.queued.labels(channel).set(queued.find((q) => q.channel === channel)?.n ?? 0);
    return out;
  }

  /** One claimed message; null when another worker took it over (this claim ran out first). */
  private async sendOne(
    m: Notification,
    claimedAt: Date,
  ): Promise<'sent' | 'retrying' | 'failed' | null> {
    const id = Number(m.id);
    const channel = m.channel;
    let credentials: Record<string, string> | null = null;
    if (channel === 'SMS') {
      credentials = await this.sms.get(
        { appId: Number(m.appId), mode: m.mode },
        this.smsProvider.name,
      );
      if (!credentials) return this.fail(m, claimedAt, 'The SMS credentials were removed');
      const since = m.outcomeUnknownSince ? new Date(m.outcomeUnknownSince) : null;
      if (since && !this.smsProvider.canAskAgain?.(since, this.clock.now()))
        return this.fail(
          m,
          claimedAt,
          `${OUTCOME_UNKNOWN}: an earlier try may have been accepted, and ${this.smsProvider.name} would no longer refuse its id as a repeat, so it is not sent again`,
        );
    }
    const handedOverAt = this.clock.now();
    const handed = await this.txHost.withTransaction(() =>
      this.repo.handOver(
        id,
        claimedAt,
        handedOverAt,
        new Date(handedOverAt.getTime() + HANDED_OVER_LEASE_MS),
      ),
    );
    if (!handed) return null;
    const tried = { ...m, attempts: m.attempts + 1 };
    try {
      if (channel === 'EMAIL') {
        await this.email.send({
          to: m.recipient,
          subject: m.subject ?? '',
          text: m.bodyText,
          html: m.bodyHtml ?? '',
          id: `notification-${id}`,
          senderName: m.senderName,
        });
      } else {
        await this.smsProvider.send(credentials ?? {}, m.recipient, m.bodyText, smsClientId(id));
      }
    } catch (err) {
      const e = err instanceof SendError ? err : new SendError((err as Error).message, true, true);
      const retryAt = this.retryAt(tried);
      // An unknown outcome is asked about again only where asking cannot send twice.
      const askAgain =
        !e.outcomeUnknown || (channel === 'SMS' && this.smsProvider.canAskAgain !== undefined);
      if (e.temporary && retryAt && askAgain) {
        await this.record(id, claimedAt, {
          status: 'QUEUED',
          error: e.message,
          nextAttemptAt: retryAt,
          outcomeUnknown: e.outcomeUnknown,
        });
        return 'retrying';
      }
      return this.fail(
        m,
        claimedAt,
        e.outcomeUnknown
          ? `${OUTCOME_UNKNOWN} (the provider may have accepted it), so it is not sent again: ${e.message}`
          : e.message,
      );
    }
    await this.record(id, claimedAt, { status: 'SENT', at: this.clock.now() });
    this.metrics.messages.labels(channel, 'SENT').inc();
    return 'sent';
  }

  private async fail(m: Notification, claimedAt: Date, error: string): Promise<'failed'> {
    await this.record(Number(m.id), claimedAt, { status: 'FAILED', error });
    this.metrics.messages.labels(m.channel, 'FAILED').inc();
    return 'failed';
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
