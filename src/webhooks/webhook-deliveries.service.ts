import { Injectable } from '@nestjs/common';
import { TransactionHost, Transactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IsNull } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { AuditService } from '../audit';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import type { TenantScope } from '../database/tenant';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { returningRows } from './sql';
import { DELIVERIES_CHANNEL } from './webhook-fanout';

export interface DeliveryFilter {
  applicationId?: number;
  mode?: Mode;
  endpointId?: number;
  status?: string;
  eventType?: string;
}

/** Re-sends allowed per endpoint per minute. */
export const RESENDS_PER_MINUTE = 10;

/** Delivery history and re-sends, for apps (their endpoints) and operators (any). */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  private get deliveries() {
    return this.txHost.tx.getRepository(WebhookDelivery);
  }

  /**
   * Retention: deletes, a batch at a time, the finished deliveries (and their
   * attempt logs) of `mode` created before `before`, then the events of that
   * age that no delivery still refers to. In-flight deliveries (PENDING,
   * RETRYING) and their events stay. This module consumes the outbox, so it
   * is the one that knows when an event is finished with.
   */
  async purgeBefore(mode: 'TEST' | 'LIVE', before: Date, batch = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const res: [{ id: number }[], number] = await this.txHost.tx.query(
        `WITH doomed AS (
           SELECT id FROM webhook_deliveries
            WHERE mode = $1 AND created_at < $2 AND status NOT IN ('PENDING', 'RETRYING')
            LIMIT $3),
         gone_attempts AS (
           DELETE FROM webhook_delivery_attempts WHERE delivery_id IN (SELECT id FROM doomed))
         DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM doomed) RETURNING id`,
        [mode, before, batch],
      );
      total += res[1] ?? 0;
      if ((res[1] ?? 0) < batch) break;
    }
    for (;;) {
      const res: [unknown[], number] = await this.txHost.tx.query(
        `DELETE FROM events WHERE id IN (
           SELECT e.id FROM events e
            WHERE e.mode = $1 AND e.created_at < $2 AND e.fanned_out_at IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
            LIMIT $3)`,
        [mode, before, batch],
      );
      total += res[1] ?? 0;
      if ((res[1] ?? 0) < batch) return total;
    }
  }

  list(query: PageQuery, filter: DeliveryFilter): Promise<Page<WebhookDelivery>> {
    const qb = this.deliveries.createQueryBuilder('d');
    if (filter.applicationId) qb.andWhere('d.appId = :appId', { appId: filter.applicationId });
    if (filter.mode) qb.andWhere('d.mode = :mode', { mode: filter.mode });
    if (filter.endpointId)
      qb.andWhere('d.endpointId = :endpointId', { endpointId: filter.endpointId });
    if (filter.status) qb.andWhere('d.status = :status', { status: filter.status });
    if (filter.eventType) qb.andWhere('d.eventType = :eventType', { eventType: filter.eventType });
    return pageOf(qb, 'd', query);
  }

  /** An app's view: deliveries of one of its endpoints in the key's mode. */
  async listForEndpoint(
    scope: TenantScope,
    endpointId: number,
    query: PageQuery,
    filter: DeliveryFilter,
  ): Promise<Page<WebhookDelivery>> {
    await this.endpointOf(scope, endpointId);
    return this.list(query, {
      ...filter,
      applicationId: scope.appId,
      mode: scope.mode,
      endpointId,
    });
  }

  async detailForEndpoint(
    scope: TenantScope,
    endpointId: number,
    deliveryId: number,
  ): Promise<{ delivery: WebhookDelivery; attempts: WebhookAttempt[] }> {
    await this.endpointOf(scope, endpointId);
    return this.detail(deliveryId, { ...scope, endpointId });
  }

  async detail(
    id: number,
    within?: TenantScope & { endpointId: number },
  ): Promise<{ delivery: WebhookDelivery; attempts: WebhookAttempt[] }> {
    const qb = this.deliveries
      .createQueryBuilder('d')
      .addSelect('d.body')
      .where('d.id = :id', { id });
    if (within) {
      qb.andWhere('d.appId = :appId AND d.mode = :mode AND d.endpointId = :endpointId', within);
    }
    const delivery = await qb.getOne();
    if (!delivery) throw AppError.notFound('Webhook delivery');
    const attempts = await this.txHost.tx
      .getRepository(WebhookAttempt)
      .find({ where: { deliveryId: id }, order: { id: 'ASC' } });
    return { delivery, attempts };
  }

  @Transactional()
  async resendForEndpoint(
    scope: TenantScope,
    endpointId: number,
    deliveryId: number,
  ): Promise<WebhookDelivery> {
    await this.endpointOf(scope, endpointId);
    return this.resendLocked(deliveryId, { ...scope, endpointId });
  }

  /** Operators: re-send one delivery, whatever its app (audited). */
  @Transactional()
  async resend(id: number): Promise<WebhookDelivery> {
    const delivery = await this.resendLocked(id);
    await this.audit.record({
      action: 'webhook_delivery.resent',
      targetType: 'webhook_delivery',
      targetId: id,
      after: { endpointId: delivery.endpointId, status: delivery.status },
    });
    return delivery;
  }

  /**
   * Queues a delivery again: same id and body, fresh timestamp and signatures
   * at its next attempt, the retry schedule starting over. Not for one that
   * is being attempted right now, nor one without an endpoint.
   */
  private async resendLocked(
    id: number,
    within?: TenantScope & { endpointId: number },
  ): Promise<WebhookDelivery> {
    const delivery = await this.deliveries.findOne({
      where: within
        ? { id, appId: within.appId, mode: within.mode, endpointId: within.endpointId }
        : { id },
      lock: { mode: 'pessimistic_write' },
    });
    if (!delivery) throw AppError.notFound('Webhook delivery');
    const now = this.clock.now();
    if (delivery.endpointId === null) {
      throw AppError.invalidState(
        'This event had no endpoint to go to (UNDELIVERABLE); there is nothing to re-send',
      );
    }
    await this.assertUsable(delivery.endpointId);
    await this.countResend(delivery.endpointId);
    if (delivery.lockedUntil && delivery.lockedUntil > now) {
      throw AppError.invalidState(
        'This delivery is being attempted right now; try again in a moment',
      );
    }
    if (delivery.status === 'PENDING') return delivery;
    await this.deliveries.update(
      { id },
      {
        status: 'PENDING',
        nextAttemptAt: now,
        cycleAttempts: 0,
        lockedUntil: null,
        lockedBy: null,
        updatedAt: now,
      },
    );
    await this.txHost.tx.query(`SELECT pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
    return (await this.deliveries.findOne({ where: { id } }))!;
  }

  /**
   * At most RESENDS_PER_MINUTE re-sends per endpoint (any route, every
   * replica: the counter is on the endpoint row, counted in the re-send's own
   * transaction, so a refused re-send counts nothing). 429 with Retry-After.
   */
  private async countResend(endpointId: number): Promise<void> {
    const now = this.clock.now();
    const windowStart = new Date(now.getTime() - 60_000);
    const rows = await returningRows<{ resend_count: number }>(
      this.txHost.tx,
      `UPDATE webhook_endpoints
          SET resend_count = CASE WHEN resend_window_start IS NULL OR resend_window_start <= $2 THEN 1 ELSE resend_count + 1 END,
              resend_window_start = CASE WHEN resend_window_start IS NULL OR resend_window_start <= $2 THEN $3 ELSE resend_window_start END
        WHERE id = $1 AND (resend_window_start IS NULL OR resend_window_start <= $2 OR resend_count < $4)
       RETURNING resend_count`,
      [endpointId, windowStart, now, RESENDS_PER_MINUTE],
    );
    if (rows.length > 0) return;
    const [held] = (await this.txHost.tx.query(
      'SELECT resend_window_start FROM webhook_endpoints WHERE id = $1',
      [endpointId],
    )) as { resend_window_start: Date }[];
    const waitS = Math.ceil(
      (new Date(held.resend_window_start).getTime() + 60_000 - now.getTime()) / 1000,
    );
    throw new AppError(
      ErrorCode.RATE_LIMITED,
      `At most ${RESENDS_PER_MINUTE} re-sends per endpoint per minute`,
      undefined,
      { 'Retry-After': String(Math.max(1, waitS)) },
    );
  }

  /** Operators: every PARKED delivery of an endpoint back to PENDING (e.g. after its URL was fixed). */
  @Transactional()
  async resendParked(endpointId: number): Promise<number> {
    await this.assertUsable(endpointId, true);
    await this.countResend(endpointId);
    const now = this.clock.now();
    const rows = await returningRows<{ id: number }>(
      this.txHost.tx,
      `UPDATE webhook_deliveries
          SET status = 'PENDING', next_attempt_at = $2, cycle_attempts = 0, locked_until = NULL, locked_by = NULL, updated_at = $2
        WHERE endpoint_id = $1 AND status = 'PARKED'
       RETURNING id`,
      [endpointId, now],
    );
    const count = rows.length;
    if (count > 0) await this.txHost.tx.query(`SELECT pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
    await this.audit.record({
      action: 'webhook_endpoint.parked_resent',
      targetType: 'webhook_endpoint',
      targetId: endpointId,
      after: { deliveries: count },
    });
    return count;
  }

  private async endpointOf(scope: TenantScope, endpointId: number): Promise<WebhookEndpoint> {
    const e = await this.txHost.tx.getRepository(WebhookEndpoint).findOne({
      where: { id: endpointId, appId: scope.appId, mode: scope.mode, deletedAt: IsNull() },
    });
    if (!e) throw AppError.notFound('Webhook endpoint');
    return e;
  }

  private async assertUsable(endpointId: number, notFoundIfMissing = false): Promise<void> {
    const e = await this.txHost.tx
      .getRepository(WebhookEndpoint)
      .findOne({ where: { id: endpointId } });
    if (!e || e.deletedAt) {
      if (notFoundIfMissing) throw AppError.notFound('Webhook endpoint');
      throw AppError.invalidState('The endpoint of this delivery was deleted');
    }
    if (!e.enabled)
      throw AppError.invalidState('The endpoint is disabled; enable it before re-sending');
  }
}
