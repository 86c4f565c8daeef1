import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../../audit';
import { Clock } from '../../common/clock/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Page } from '../../common/http/envelope';
import type { PageQuery } from '../../common/http/pagination';
import type { Mode } from '../../common/http/request-context';
import type { TenantScope } from '../../database/tenant';
import { EventsService } from '../../events';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import type { WebhookAttempt } from './webhook-attempt.entity';
import { DeliveryFilter, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import type { WebhookDelivery } from './webhook-delivery.entity';

export type { DeliveryFilter };

/** Re-sends allowed per endpoint per minute. */
export const RESENDS_PER_MINUTE = 10;

/** Delivery history and re-sends, for apps (their endpoints) and operators (any). */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  /**
   * Retention: deletes, a batch at a time, the finished deliveries (and their
   * attempt logs) of `mode` created before `before`, then the events of that
   * age that no delivery still refers to. In-flight deliveries (PENDING,
   * RETRYING) and their events stay. This module consumes the outbox, so it
   * is the one that knows when an event is finished with.
   */
  async purgeBefore(mode: Mode, before: Date, batch = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const gone = await this.deliveries.purgeFinished(mode, before, batch);
      total += gone;
      if (gone < batch) break;
    }
    return (
      total +
      (await this.events.purgeBefore(
        mode,
        before,
        (ids) => this.deliveries.eventIdsReferenced(ids),
        batch,
      ))
    );
  }

  list(query: PageQuery, filter: DeliveryFilter): Promise<Page<WebhookDelivery>> {
    return this.deliveries.page(query, filter);
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
    const delivery = await this.deliveries.withBody(id, within);
    if (!delivery) throw AppError.notFound('Webhook delivery');
    const attempts = await this.deliveries.attemptsOf(id);
    return { delivery, attempts };
  }

  @Transactional()
  async resendForEndpoint(
    scope: TenantScope,
    endpointId: number,
    deliveryId: number,
  ): Promise<WebhookDelivery> {
    await this.endpointOf(scope, endpointId);
    const delivery = await this.resendLocked(deliveryId, { ...scope, endpointId });
    // An admin acting on the app through the app routes (section 15) is audited; an app key is not.
    await this.audit.record({
      action: 'webhook_delivery.resent',
      targetType: 'webhook_delivery',
      targetId: deliveryId,
      after: { applicationId: scope.appId, mode: scope.mode, endpointId, status: delivery.status },
      adminOnly: true,
    });
    return delivery;
  }

  /** The app a delivery belongs to, or null when there is none (the scope check of admin routes). */
  appOf(id: number): Promise<number | null> {
    return this.deliveries.appOf(id);
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
    const delivery = await this.deliveries.lock(id, within);
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
    await this.deliveries.requeue(id, now);
    await this.deliveries.notifyDue();
    return (await this.deliveries.byId(id))!;
  }

  /**
   * At most RESENDS_PER_MINUTE re-sends per endpoint (any route, every
   * replica: the counter is on the endpoint row, counted in the re-send's own
   * transaction, so a refused re-send counts nothing). 429 with Retry-After.
   */
  private async countResend(endpointId: number): Promise<void> {
    const now = this.clock.now();
    const windowStart = new Date(now.getTime() - 60_000);
    if (await this.endpoints.countResend(endpointId, windowStart, now, RESENDS_PER_MINUTE)) return;
    const heldSince = await this.endpoints.resendWindowStart(endpointId);
    const waitS = Math.ceil((heldSince.getTime() + 60_000 - now.getTime()) / 1000);
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
    const count = await this.deliveries.requeueParked(endpointId, now);
    if (count > 0) await this.deliveries.notifyDue();
    await this.audit.record({
      action: 'webhook_endpoint.parked_resent',
      targetType: 'webhook_endpoint',
      targetId: endpointId,
      after: { deliveries: count },
    });
    return count;
  }

  private async endpointOf(scope: TenantScope, endpointId: number): Promise<void> {
    if (!(await this.endpoints.liveIn(scope, endpointId)))
      throw AppError.notFound('Webhook endpoint');
  }

  private async assertUsable(endpointId: number, notFoundIfMissing = false): Promise<void> {
    const e = await this.endpoints.byId(endpointId);
    if (!e || e.deletedAt) {
      if (notFoundIfMissing) throw AppError.notFound('Webhook endpoint');
      throw AppError.invalidState('The endpoint of this delivery was deleted');
    }
    if (!e.enabled)
      throw AppError.invalidState('The endpoint is disabled; enable it before re-sending');
  }
}
