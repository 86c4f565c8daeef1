import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { Mode } from '../../src/common/http/request-context';
import { type EventType, statusOfType } from '../../src/events/event-catalogue';
import { EventsRepository } from '../../src/events/events.repository';
import { WebhookDispatcher } from '../../src/webhooks/delivery/webhook-dispatcher';
import { WebhookWorkers } from '../../src/webhooks/delivery/webhook-workers';
import { asApp, Credentials } from './factories';
import type { TestApp } from './test-app';

/**
 * Records one event with synthetic `data` (for tests of delivery mechanics,
 * whose data need not be a real payload), in its own transaction: the row
 * EventsService.record writes (the status added from the type), without
 * its check against the published schema (src/events/event-payloads.ts),
 * which the specs of real flows keep.
 */
export async function recordEvent(
  t: TestApp,
  scope: { appId: number; mode: Mode },
  type: EventType,
  data: Record<string, unknown> = {},
): Promise<number> {
  const txHost = t.app.get(TransactionHost);
  return txHost.withTransaction(() => recordSyntheticEvent(t, scope, type, data));
}

/** As recordEvent, inside the caller's open transaction. */
export async function recordSyntheticEvent(
  t: TestApp,
  scope: { appId: number; mode: Mode },
  type: EventType,
  data: Record<string, unknown> = {},
): Promise<number> {
  const status = statusOfType(type);
  return t.app.get(EventsRepository).insert({
    appId: scope.appId,
    mode: scope.mode,
    type,
    data: status === undefined ? data : { ...data, status },
    createdAt: t.clock.now(),
  });
}

/** Inside a transaction: the id of the event it recorded last (the events sequence's value in this session). */
export async function lastEventId(txHost: TransactionHost): Promise<number> {
  const [{ id }] = (await (txHost as TransactionHost<TransactionalAdapterTypeOrm>).tx.query(
    `SELECT currval(pg_get_serial_sequence('events', 'id'))::int AS id`,
  )) as { id: number }[];
  return id;
}

export async function createEndpoint(
  t: TestApp,
  creds: Credentials,
  body: { url: string; events?: string[]; enabled?: boolean; description?: string },
): Promise<{ id: number; secret: string; url: string }> {
  const res = await t
    .http()
    .post('/api/v1/webhook-endpoints')
    .set(asApp(creds))
    .send({ events: ['*'], ...body });
  if (res.status !== 201)
    throw new Error(`create endpoint failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export function workersOf(t: TestApp): WebhookWorkers {
  return t.app.get(WebhookWorkers);
}

export function dispatcherOf(t: TestApp): WebhookDispatcher {
  return t.app.get(WebhookDispatcher);
}

/** Polls `probe` until it returns a truthy value; fails after `timeoutMs` (for background work, not business time). */
export async function eventually<T>(
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 25));
  }
}

export interface DeliveryRow {
  id: number;
  event_id: number;
  endpoint_id: number | null;
  status: string;
  attempts: number;
  cycle_attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  locked_by: string | null;
  locked_until: Date | null;
  body: string;
  delivered_at: Date | null;
}

export async function deliveriesOfEvent(t: TestApp, eventId: number): Promise<DeliveryRow[]> {
  const r = await t.db.query<DeliveryRow>(
    'SELECT * FROM webhook_deliveries WHERE event_id = $1 ORDER BY id',
    [eventId],
  );
  return r.rows;
}

export async function deliveryRow(t: TestApp, id: number): Promise<DeliveryRow> {
  const r = await t.db.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = $1', [id]);
  return r.rows[0];
}
