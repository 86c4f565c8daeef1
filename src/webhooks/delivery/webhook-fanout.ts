import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { Clock } from '../../common/clock/clock';
import type { TenantScope } from '../../database/tenant';
import { EventRecord, EventsService } from '../../events';
import { TEST_EVENT } from '../../events/event-catalogue';
import { subscribes } from '../endpoints/webhook-endpoint.entity';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { DeliveryError } from './delivery-status';
import { buildEnvelopeBody } from './envelope';
import { DELIVERIES_CHANNEL, WebhookDeliveriesRepository } from './webhook-deliveries.repository';

export const FANOUT_BATCH = 200;
export { DELIVERIES_CHANNEL };
/** Relays are woken on this channel when events commit (a trigger on the events table). */
export const EVENTS_CHANNEL = 'joma_events';

export interface FanoutResult {
  events: number;
  /** Deliveries to endpoints. */
  deliveries: number;
  /** Events kept as UNDELIVERABLE (no endpoint). */
  undeliverable: number;
}

/**
 * The outbox relay: turns committed events into deliveries, one per enabled,
 * subscribed endpoint of the event's mode (or one UNDELIVERABLE row when there
 * is none). Events are claimed with FOR UPDATE SKIP LOCKED and marked in the
 * same transaction that inserts their deliveries, so each event fans out
 * exactly once across replicas, and a crash before commit leaves it to the
 * next run. Rolled-back events were never committed, so never seen.
 */
@Injectable()
export class WebhookFanout {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly events: EventsService,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly clock: Clock,
  ) {}

  /** `relay`: the worker id of the dispatcher that pumps right after (it skips the NOTIFY's echo). */
  fanOutBatch(limit = FANOUT_BATCH, relay?: string): Promise<FanoutResult> {
    return this.txHost.withTransaction(async () => {
      const now = this.clock.now();
      const events = await this.events.claimForFanout(limit, now);
      if (events.length === 0) return { events: 0, deliveries: 0, undeliverable: 0 };
      const endpoints = await this.endpoints.routableIn(uniqueScopes(events));

      const plan: { event: EventRecord; endpointId: number | null }[] = [];
      for (const event of events) {
        const targets = endpoints.filter(
          (e) =>
            e.appId === event.appId &&
            e.mode === event.mode &&
            (event.type === TEST_EVENT
              ? e.id === Number(event.data.endpoint_id)
              : subscribes(e.events, event.type)),
        );
        if (targets.length === 0) plan.push({ event, endpointId: null });
        for (const t of targets) plan.push({ event, endpointId: t.id });
      }

      const ids = await this.deliveries.nextIds(plan.length);
      const routed = plan.filter((p) => p.endpointId !== null).length;
      await this.deliveries.insertMany(
        plan.map(({ event, endpointId }, i) =>
          endpointId === null
            ? {
                id: ids[i],
                eventId: event.id,
                endpointId,
                appId: event.appId,
                mode: event.mode,
                eventType: event.type,
                eventRecordedAt: event.createdAt,
                // An UNDELIVERABLE row keeps no copy of the body: nothing will ever send it.
                body: '',
                status: 'UNDELIVERABLE',
                nextAttemptAt: null,
                lastError: DeliveryError.NO_ENDPOINT_CONFIGURED,
              }
            : {
                id: ids[i],
                eventId: event.id,
                endpointId,
                appId: event.appId,
                mode: event.mode,
                eventType: event.type,
                eventRecordedAt: event.createdAt,
                body: buildEnvelopeBody({
                  deliveryId: ids[i],
                  type: event.type,
                  createdAt: event.createdAt,
                  mode: event.mode,
                  appId: event.appId,
                  data: event.data,
                }),
                status: 'PENDING',
                nextAttemptAt: now,
                lastError: null,
              },
        ),
        now,
        relay,
      );
      return { events: events.length, deliveries: routed, undeliverable: plan.length - routed };
    });
  }
}

function uniqueScopes(events: EventRecord[]): TenantScope[] {
  const seen = new Map<string, TenantScope>();
  for (const e of events) seen.set(`${e.appId}:${e.mode}`, { appId: e.appId, mode: e.mode });
  return [...seen.values()];
}
