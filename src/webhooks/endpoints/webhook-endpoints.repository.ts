import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IsNull } from 'typeorm';

import type { Page } from '../../common/http/envelope';
import { pageOf, PageQuery } from '../../common/http/pagination';
import type { Mode } from '../../common/http/request-context';
import { sql } from '../../database/sql';
import type { TenantScope } from '../../database/tenant';
import { WebhookEndpoint } from './webhook-endpoint.entity';

/** What the outbox relay needs of an endpoint to route events to it. */
export interface RoutableEndpoint {
  id: number;
  appId: number;
  mode: Mode;
  events: string[];
}

/** Every query of the webhook_endpoints table. Deleted endpoints are soft-deleted (deleted_at). */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private get endpoints() {
    return this.txHost.tx.getRepository(WebhookEndpoint);
  }

  /** Serialises endpoint creation within one app and mode until the transaction ends. */
  async lockPartition(scope: TenantScope): Promise<void> {
    await sql(this.txHost.tx).run(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `webhook-endpoints:${scope.appId}:${scope.mode}`,
    ]);
  }

  countLive(scope: TenantScope): Promise<number> {
    return this.endpoints.count({
      where: { appId: scope.appId, mode: scope.mode, deletedAt: IsNull() },
    });
  }

  insert(fields: Omit<WebhookEndpoint, 'id'>): Promise<WebhookEndpoint> {
    return this.endpoints.save(this.endpoints.create(fields));
  }

  async update(id: number, changes: Partial<WebhookEndpoint>): Promise<void> {
    await this.endpoints.update({ id }, changes);
  }

  /** A live (not deleted) endpoint of the scope. */
  liveIn(scope: TenantScope, id: number): Promise<WebhookEndpoint | null> {
    if (!Number.isSafeInteger(id)) return Promise.resolve(null);
    return this.endpoints.findOne({
      where: { id, appId: scope.appId, mode: scope.mode, deletedAt: IsNull() },
    });
  }

  /** A live endpoint of the scope, row-locked (FOR UPDATE) until the transaction ends. */
  lockLiveIn(scope: TenantScope, id: number): Promise<WebhookEndpoint | null> {
    return this.endpoints.findOne({
      where: { id, appId: scope.appId, mode: scope.mode, deletedAt: IsNull() },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Any endpoint by id, deleted or not. */
  byId(id: number): Promise<WebhookEndpoint | null> {
    return this.endpoints.findOne({ where: { id } });
  }

  /** A live endpoint's partition (operators address endpoints by id alone). */
  async scopeOfLive(id: number): Promise<TenantScope | null> {
    const e = await this.endpoints.findOne({
      where: { id, deletedAt: IsNull() },
      select: { id: true, appId: true, mode: true },
    });
    return e ? { appId: e.appId, mode: e.mode } : null;
  }

  pageIn(scope: TenantScope, query: PageQuery): Promise<Page<WebhookEndpoint>> {
    const qb = this.endpoints
      .createQueryBuilder('e')
      .where('e.appId = :appId AND e.mode = :mode AND e.deletedAt IS NULL', {
        appId: scope.appId,
        mode: scope.mode,
      });
    return pageOf(qb, 'e', query);
  }

  pageAll(
    query: PageQuery,
    filter: { applicationId?: number; mode?: Mode; appIds?: number[] },
  ): Promise<Page<WebhookEndpoint>> {
    const qb = this.endpoints.createQueryBuilder('e').where('e.deletedAt IS NULL');
    if (filter.applicationId) qb.andWhere('e.appId = :appId', { appId: filter.applicationId });
    if (filter.appIds) qb.andWhere('e.appId = ANY(:appIds)', { appIds: filter.appIds });
    if (filter.mode) qb.andWhere('e.mode = :mode', { mode: filter.mode });
    return pageOf(qb, 'e', query);
  }

  /** Enabled, live endpoints of any of these partitions, in id order. */
  async routableIn(scopes: TenantScope[]): Promise<RoutableEndpoint[]> {
    const rows = await sql(this.txHost.tx).rows<{
      id: string;
      app_id: string;
      mode: Mode;
      events: string[];
    }>(
      `SELECT e.id, e.app_id, e.mode, e.events FROM webhook_endpoints e
         JOIN unnest($1::bigint[], $2::mode[]) AS s (app_id, mode) ON s.app_id = e.app_id AND s.mode = e.mode
        WHERE e.enabled AND e.deleted_at IS NULL
        ORDER BY e.id`,
      [scopes.map((s) => s.appId), scopes.map((s) => s.mode)],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      appId: Number(r.app_id),
      mode: r.mode,
      events: r.events,
    }));
  }

  /**
   * Counts one re-send in the endpoint's one-minute window (a window that
   * started before `windowStart` starts over at `now`); false, counting
   * nothing, when the window already holds `limit`.
   */
  countResend(id: number, windowStart: Date, now: Date, limit: number): Promise<boolean> {
    return this.countInWindow('resend', id, windowStart, now, limit);
  }

  resendWindowStart(id: number): Promise<Date> {
    return this.windowStartOf('resend', id);
  }

  /**
   * As countResend, for test events (`POST /webhook-endpoints/{id}/test`):
   * their own window and counter on the endpoint row, so every replica
   * counts in the same place.
   */
  countTestEvent(id: number, windowStart: Date, now: Date, limit: number): Promise<boolean> {
    return this.countInWindow('test_event', id, windowStart, now, limit);
  }

  testEventWindowStart(id: number): Promise<Date> {
    return this.windowStartOf('test_event', id);
  }

  /** One windowed counter on the endpoint row (`<kind>_count`, `<kind>_window_start`). */
  private async countInWindow(
    kind: WindowedCounter,
    id: number,
    windowStart: Date,
    now: Date,
    limit: number,
  ): Promise<boolean> {
    const count = `${kind}_count`;
    const start = `${kind}_window_start`;
    const rows = await sql(this.txHost.tx).rows<Record<string, number>>(
      `UPDATE webhook_endpoints
          SET ${count} = CASE WHEN ${start} IS NULL OR ${start} <= $2 THEN 1 ELSE ${count} + 1 END,
              ${start} = CASE WHEN ${start} IS NULL OR ${start} <= $2 THEN $3 ELSE ${start} END
        WHERE id = $1 AND (${start} IS NULL OR ${start} <= $2 OR ${count} < $4)
       RETURNING ${count}`,
      [id, windowStart, now, limit],
    );
    return rows.length > 0;
  }

  private async windowStartOf(kind: WindowedCounter, id: number): Promise<Date> {
    const [held] = await sql(this.txHost.tx).rows<{ start: Date }>(
      `SELECT ${kind}_window_start AS start FROM webhook_endpoints WHERE id = $1`,
      [id],
    );
    return new Date(held.start);
  }

  /** The sealed signing secret as stored now (null for a legacy endpoint that never had one). */
  async sealedSecret(id: number): Promise<string | null> {
    const [row] = await sql(this.txHost.tx).rows<{ secret_ciphertext: string | null }>(
      `SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1`,
      [id],
    );
    return row?.secret_ciphertext ?? null;
  }

  /** Stores `sealed` unless the endpoint already has a secret (a racing writer wins). */
  async fillMissingSecret(id: number, sealed: string): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE webhook_endpoints SET secret_ciphertext = $2 WHERE id = $1 AND secret_ciphertext IS NULL`,
      [id, sealed],
    );
  }
}

/** The per-minute counters kept on an endpoint's row (their column names' stem; never caller input). */
type WindowedCounter = 'resend' | 'test_event';
