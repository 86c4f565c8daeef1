import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Clock } from '../common/clock/clock';
import type { Mode } from '../common/http/request-context';
import { DeliveryError } from './delivery-status';
import { buildEnvelopeBody } from './envelope';
import { subscribes } from './webhook-endpoint.entity';

export const FANOUT_BATCH = 200;
export const DELIVERIES_CHANNEL = 'joma_deliveries';
export const EVENTS_CHANNEL = 'joma_events';

interface PendingEvent {
  id: number;
  app_id: number;
  mode: Mode;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

interface RoutableEndpoint {
  id: number;
  app_id: number;
  mode: Mode;
  events: string[];
}

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
    private readonly clock: Clock,
  ) {}

  fanOutBatch(limit = FANOUT_BATCH): Promise<FanoutResult> {
    return this.txHost.withTransaction(async () => {
      const tx = this.txHost.tx;
      const events = (await tx.query(
        `SELECT id, app_id, mode, type, data, created_at FROM events
          WHERE fanned_out_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      )) as PendingEvent[];
      if (events.length === 0) return { events: 0, deliveries: 0, undeliverable: 0 };

      const scopes = uniqueScopes(events);
      const endpoints = (await tx.query(
        `SELECT e.id, e.app_id, e.mode, e.events FROM webhook_endpoints e
           JOIN unnest($1::bigint[], $2::mode[]) AS s (app_id, mode) ON s.app_id = e.app_id AND s.mode = e.mode
          WHERE e.enabled AND e.deleted_at IS NULL
          ORDER BY e.id`,
        [scopes.map((s) => s.appId), scopes.map((s) => s.mode)],
      )) as RoutableEndpoint[];

      const plan: { event: PendingEvent; endpointId: number | null }[] = [];
      for (const event of events) {
        const targets = endpoints.filter(
          (e) =>
            e.app_id === event.app_id && e.mode === event.mode && subscribes(e.events, event.type),
        );
        if (targets.length === 0) plan.push({ event, endpointId: null });
        for (const t of targets) plan.push({ event, endpointId: t.id });
      }

      const ids = (
        (await tx.query(
          `SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'id')) AS id FROM generate_series(1, $1)`,
          [plan.length],
        )) as { id: number }[]
      ).map((r) => r.id);
      const now = this.clock.now();
      const routed = plan.filter((p) => p.endpointId !== null).length;
      await tx.query(
        `INSERT INTO webhook_deliveries
           (id, event_id, endpoint_id, app_id, mode, event_type, body, status, next_attempt_at, last_error, created_at, updated_at)
         SELECT d.id, d.event_id, d.endpoint_id, d.app_id, d.mode, d.event_type, d.body, d.status, d.next_attempt_at, d.last_error, $11, $11
           FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::mode[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[])
             AS d (id, event_id, endpoint_id, app_id, mode, event_type, body, status, next_attempt_at, last_error)`,
        [
          ids,
          plan.map((p) => p.event.id),
          plan.map((p) => p.endpointId),
          plan.map((p) => p.event.app_id),
          plan.map((p) => p.event.mode),
          plan.map((p) => p.event.type),
          // An UNDELIVERABLE row keeps no copy of the body: nothing will ever send it.
          plan.map((p, i) =>
            p.endpointId === null
              ? ''
              : buildEnvelopeBody({
                  deliveryId: ids[i],
                  type: p.event.type,
                  createdAt: p.event.created_at,
                  mode: p.event.mode,
                  appId: p.event.app_id,
                  data: p.event.data,
                }),
          ),
          plan.map((p) => (p.endpointId === null ? 'UNDELIVERABLE' : 'PENDING')),
          plan.map((p) => (p.endpointId === null ? null : now)),
          plan.map((p) => (p.endpointId === null ? DeliveryError.NO_ENDPOINT_CONFIGURED : null)),
          now,
        ],
      );
      await tx.query(`UPDATE events SET fanned_out_at = $2 WHERE id = ANY($1::bigint[])`, [
        events.map((e) => e.id),
        now,
      ]);
      if (routed > 0) await tx.query(`SELECT pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
      return { events: events.length, deliveries: routed, undeliverable: plan.length - routed };
    });
  }
}

function uniqueScopes(events: PendingEvent[]): { appId: number; mode: Mode }[] {
  const seen = new Map<string, { appId: number; mode: Mode }>();
  for (const e of events) seen.set(`${e.app_id}:${e.mode}`, { appId: e.app_id, mode: e.mode });
  return [...seen.values()];
}
