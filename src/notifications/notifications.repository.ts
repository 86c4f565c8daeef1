import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { Page } from '../common/http/envelope';
import { pageOf, type PageQuery } from '../common/http/pagination';
import { sql } from '../database/sql';
import type { TenantScope } from '../database/tenant';
import {
  Notification,
  type NotificationKind,
  type NotificationStatus,
  SmsCredential,
} from './notification.entity';

export type NewNotification = Omit<
  Notification,
  'id' | 'attempts' | 'lastError' | 'sendingSince' | 'claimedUntil' | 'sentAt'
> & { lastError?: string | null };

/** Every query of the notifications and sms_credentials tables. */
@Injectable()
export class NotificationsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private get notifications() {
    return this.txHost.tx.getRepository(Notification);
  }

  private get sms() {
    return this.txHost.tx.getRepository(SmsCredential);
  }

  /**
   * Records the decided messages; a (fact, channel) decided before is left
   * as it is (the unique key), so a fact seen twice never makes two messages.
   */
  async decide(rows: NewNotification[]): Promise<void> {
    if (rows.length === 0) return;
    await this.notifications
      .createQueryBuilder()
      .insert()
      .into(Notification)
      .values(rows.map((r) => ({ ...r, attempts: 0, lastError: r.lastError ?? null })))
      .orIgnore()
      .execute();
  }

  /**
   * Claims up to `limit` messages due now (FOR UPDATE SKIP LOCKED: each goes
   * to one worker), marking them as being sent until `leaseUntil` and
   * counting the try, in one statement that commits before anything is sent.
   */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<Notification[]> {
    return sql(this.txHost.tx).rows<Notification>(
      `UPDATE notifications n SET sending_since = $1, claimed_until = $2, attempts = n.attempts + 1
        WHERE n.id IN (
          SELECT id FROM notifications
           WHERE status = 'QUEUED' AND next_attempt_at <= $1 AND sending_since IS NULL
           ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING n.id, n.app_id AS "appId", n.mode, n.channel, n.kind, n.recipient,
                  n.subject, n.body_text AS "bodyText", n.body_html AS "bodyHtml",
                  n.attempts, n.created_at AS "createdAt", n.fact_key AS "factKey"`,
      [now, leaseUntil, limit],
    );
  }

  /**
   * Messages whose sender stopped mid-send (its lease ran out with no
   * outcome recorded): whether they went out is unknown, so they are not
   * sent again (a payer must never get one twice); FAILED with the reason.
   */
  abandon(now: Date): Promise<number> {
    return sql(this.txHost.tx).run(
      `UPDATE notifications SET status = 'FAILED', sending_since = NULL, claimed_until = NULL,
              last_error = 'The sender stopped mid-send; the outcome is unknown, so it is not sent again'
        WHERE status = 'QUEUED' AND sending_since IS NOT NULL AND claimed_until <= $1`,
      [now],
    );
  }

  /** The outcome of a claimed try; only while this claim holds (a lapsed claim was abandoned). */
  record(
    id: number,
    claimedAt: Date,
    outcome:
      | { status: 'SENT'; at: Date }
      | { status: 'QUEUED'; error: string; nextAttemptAt: Date }
      | { status: 'FAILED'; error: string },
  ): Promise<number> {
    return sql(this.txHost.tx).run(
      `UPDATE notifications SET status = $3, sending_since = NULL, claimed_until = NULL,
              sent_at = $4, last_error = $5, next_attempt_at = COALESCE($6, next_attempt_at)
        WHERE id = $1 AND sending_since = $2`,
      [
        id,
        claimedAt,
        outcome.status,
        outcome.status === 'SENT' ? outcome.at : null,
        outcome.status === 'SENT' ? null : outcome.error,
        outcome.status === 'QUEUED' ? outcome.nextAttemptAt : null,
      ],
    );
  }

  /** Messages waiting per channel (the queued gauge). */
  queuedByChannel(): Promise<{ channel: string; n: number }[]> {
    return sql(this.txHost.tx).rows(
      `SELECT channel, count(*)::int AS n FROM notifications WHERE status = 'QUEUED' GROUP BY channel`,
    );
  }

  page(
    scope: TenantScope,
    query: PageQuery,
    filter: { kind?: NotificationKind; status?: NotificationStatus; invoiceId?: number },
  ): Promise<Page<Notification>> {
    const qb = this.notifications
      .createQueryBuilder('n')
      .where('n.appId = :appId AND n.mode = :mode', scope);
    if (filter.kind) qb.andWhere('n.kind = :kind', { kind: filter.kind });
    if (filter.status) qb.andWhere('n.status = :status', { status: filter.status });
    if (filter.invoiceId) qb.andWhere('n.invoiceId = :invoiceId', { invoiceId: filter.invoiceId });
    return pageOf(qb, 'n', query);
  }

  byId(scope: TenantScope, id: number): Promise<Notification | null> {
    if (!Number.isSafeInteger(id) || id < 1) return Promise.resolve(null);
    return this.notifications.findOne({ where: { id, appId: scope.appId, mode: scope.mode } });
  }

  async smsCredential(scope: TenantScope, provider: string): Promise<string | null> {
    const row = await this.sms.findOne({
      where: { appId: String(scope.appId), mode: scope.mode, provider },
    });
    return row?.sealed ?? null;
  }

  async setSmsCredential(scope: TenantScope, provider: string, sealed: string, at: Date) {
    await this.sms.upsert(
      { appId: String(scope.appId), mode: scope.mode, provider, sealed, updatedAt: at },
      ['appId', 'mode', 'provider'],
    );
  }
}
