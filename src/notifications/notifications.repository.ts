import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { Page } from '../common/http/envelope';
import { pageOf, type PageQuery } from '../common/http/pagination';
import { EntitySql } from '../database/entity-sql';
import { sql } from '../database/sql';
import type { TenantScope } from '../database/tenant';
import {
  Notification,
  type NotificationKind,
  type NotificationStatus,
} from './notification.entity';

export type NewNotification = Omit<
  Notification,
  | 'id'
  | 'attempts'
  | 'lastError'
  | 'sendingSince'
  | 'claimedUntil'
  | 'handedOverAt'
  | 'outcomeUnknownSince'
  | 'sentAt'
> & { lastError?: string | null };

/** The last error of a message never sent again because it may have reached the payer. */
export const OUTCOME_UNKNOWN = 'Outcome unknown';

/** Every query of the notifications and sms_credentials tables. */
@Injectable()
export class NotificationsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private compiled?: EntitySql<Notification>;

  /** The table's select list, hydration and INSERT (see EntitySql). */
  private get notifications(): EntitySql<Notification> {
    return (this.compiled ??= EntitySql.of(this.txHost.tx.connection, Notification));
  }

  /**
   * Records the decided messages; a (fact, channel) decided before is left
   * as it is (the unique key), so a fact seen twice never makes two messages.
   */
  async decide(rows: NewNotification[]): Promise<void> {
    if (rows.length === 0) return;
    await this.notifications.insertMany(
      this.txHost.tx,
      // Every row gives every column (one INSERT names one column list); nullable ones left out are NULL.
      rows.map((r) => ({
        ...r,
        invoiceId: r.invoiceId ?? null,
        paymentId: r.paymentId ?? null,
        subscriptionId: r.subscriptionId ?? null,
        subject: r.subject ?? null,
        bodyHtml: r.bodyHtml ?? null,
        nextAttemptAt: r.nextAttemptAt ?? null,
        senderName: r.senderName ?? null,
        attempts: 0,
        lastError: r.lastError ?? null,
      })),
      { ignoreConflicts: true },
    );
  }

  /**
   * Claims up to `limit` messages due now (FOR UPDATE SKIP LOCKED: each goes
   * to one worker) until `leaseUntil`, in one statement that commits before
   * anything is sent. A claim that ran out before its message was handed
   * over is no obstacle: that worker stopped (or fell behind) before
   * sending, so another takes the message.
   */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<Notification[]> {
    return sql(this.txHost.tx).rows<Notification>(
      `UPDATE notifications n SET sending_since = $1, claimed_until = $2
        WHERE n.id IN (
          SELECT id FROM notifications
           WHERE status = 'QUEUED' AND next_attempt_at <= $1
             AND (sending_since IS NULL OR (handed_over_at IS NULL AND claimed_until <= $1))
           ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING n.id, n.app_id AS "appId", n.mode, n.channel, n.kind, n.recipient,
                  n.subject, n.body_text AS "bodyText", n.body_html AS "bodyHtml",
                  n.attempts, n.created_at AS "createdAt", n.fact_key AS "factKey",
                  n.sender_name AS "senderName", n.outcome_unknown_since AS "outcomeUnknownSince"`,
      [now, leaseUntil, limit],
    );
  }

  /**
   * Marks a claimed message as handed over (the try counted), in its own
   * statement committed just before the network call, and holds it until
   * `leaseUntil` (longer than any send takes). False when the claim is no
   * longer this worker's (it ran out and another worker took the message):
   * then it must not be sent.
   */
  async handOver(id: number, claimedAt: Date, at: Date, leaseUntil: Date): Promise<boolean> {
    const n = await sql(this.txHost.tx).run(
      `UPDATE notifications SET handed_over_at = $3, claimed_until = $4, attempts = attempts + 1
        WHERE id = $1 AND sending_since = $2 AND status = 'QUEUED' AND handed_over_at IS NULL`,
      [id, claimedAt, at, leaseUntil],
    );
    return n === 1;
  }

  /**
   * Messages handed over by a sender that stopped before recording the
   * outcome (its lease ran out): the provider may have accepted them, so
   * they are never sent again (a payer must never get one twice); FAILED,
   * outcome unknown. Claims that ran out before the hand-over are not
   * touched: claimDue takes those messages again.
   */
  abandon(now: Date): Promise<number> {
    return sql(this.txHost.tx).run(
      `UPDATE notifications SET status = 'FAILED', sending_since = NULL, claimed_until = NULL,
              last_error = '${OUTCOME_UNKNOWN}: the sender stopped after handing it over, so the outcome is unknown and it is not sent again'
        WHERE status = 'QUEUED' AND handed_over_at IS NOT NULL AND claimed_until <= $1`,
      [now],
    );
  }

  /**
   * The outcome of a claimed try; only while this claim holds (a lapsed
   * claim was abandoned or taken over). A retry after an unknown outcome
   * keeps when the first unknown one was (`outcomeUnknown`).
   */
  record(
    id: number,
    claimedAt: Date,
    outcome:
      | { status: 'SENT'; at: Date }
      | { status: 'QUEUED'; error: string; nextAttemptAt: Date; outcomeUnknown?: boolean }
      | { status: 'FAILED'; error: string },
  ): Promise<number> {
    return sql(this.txHost.tx).run(
      `UPDATE notifications SET status = $3, sending_since = NULL, claimed_until = NULL,
              sent_at = $4, last_error = $5, next_attempt_at = COALESCE($6, next_attempt_at),
              outcome_unknown_since = CASE WHEN $7 THEN COALESCE(outcome_unknown_since, handed_over_at)
                                           ELSE outcome_unknown_since END,
              handed_over_at = CASE WHEN $3 = 'QUEUED' THEN NULL ELSE handed_over_at END
        WHERE id = $1 AND sending_since = $2`,
      [
        id,
        claimedAt,
        outcome.status,
        outcome.status === 'SENT' ? outcome.at : null,
        outcome.status === 'SENT' ? null : outcome.error,
        outcome.status === 'QUEUED' ? outcome.nextAttemptAt : null,
        outcome.status === 'QUEUED' && outcome.outcomeUnknown === true,
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
    const qb = this.txHost.tx
      .createQueryBuilder(Notification, 'n')
      .where('n.appId = :appId AND n.mode = :mode', scope);
    if (filter.kind) qb.andWhere('n.kind = :kind', { kind: filter.kind });
    if (filter.status) qb.andWhere('n.status = :status', { status: filter.status });
    if (filter.invoiceId) qb.andWhere('n.invoiceId = :invoiceId', { invoiceId: filter.invoiceId });
    return pageOf(qb, 'n', query);
  }

  async byId(scope: TenantScope, id: number): Promise<Notification | null> {
    if (!Number.isSafeInteger(id) || id < 1) return null;
    const n = this.notifications;
    const [row] = await n.rows(
      this.txHost.tx,
      `SELECT ${n.selectList} FROM ${n.table} WHERE id = $1 AND app_id = $2 AND mode = $3 LIMIT 1`,
      [id, scope.appId, scope.mode],
    );
    return row ?? null;
  }

  async smsCredential(scope: TenantScope, provider: string): Promise<string | null> {
    const row = await sql(this.txHost.tx).one<{ sealed: string }>(
      `SELECT sealed FROM sms_credentials WHERE app_id = $1 AND mode = $2 AND provider = $3`,
      [scope.appId, scope.mode, provider],
    );
    return row?.sealed ?? null;
  }

  async setSmsCredential(scope: TenantScope, provider: string, sealed: string, at: Date) {
    await sql(this.txHost.tx).run(
      `INSERT INTO sms_credentials (app_id, mode, provider, sealed, updated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (app_id, mode, provider) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at`,
      [scope.appId, scope.mode, provider, sealed, at],
    );
  }
}
