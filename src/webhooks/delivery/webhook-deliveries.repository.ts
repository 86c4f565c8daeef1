import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { Page } from '../../common/http/envelope';
import { pageOf, PageQuery } from '../../common/http/pagination';
import type { Mode } from '../../common/http/request-context';
import { EntitySql } from '../../database/entity-sql';
import { countedRows } from '../../database/list-counts';
import { sql } from '../../database/sql';
import type { TenantScope } from '../../database/tenant';
import type { DeliveryStatus } from './delivery-status';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WebhookDelivery } from './webhook-delivery.entity';

/** Dispatchers are woken on this channel when deliveries become due (created or re-sent). */
export const DELIVERIES_CHANNEL = 'joma_deliveries';

export interface DeliveryFilter {
  applicationId?: number;
  mode?: Mode;
  endpointId?: number;
  status?: string;
  eventType?: string;
  /** An app-scoped admin's apps (section 15). */
  appIds?: number[];
}

/** A delivery the outbox relay is about to write (endpointId null: UNDELIVERABLE). */
export interface PlannedDelivery {
  id: number;
  eventId: number;
  endpointId: number | null;
  appId: number;
  mode: Mode;
  eventType: string;
  /** When the event was recorded (EventRecord.createdAt). */
  eventRecordedAt: Date;
  body: string;
  status: 'PENDING' | 'UNDELIVERABLE';
  nextAttemptAt: Date | null;
  lastError: string | null;
}

/** A delivery claimed by a dispatcher, with its endpoint's routing facts. */
export interface ClaimedDelivery {
  id: number;
  event_id: number;
  endpoint_id: number;
  app_id: number;
  mode: Mode;
  event_type: string;
  body: string;
  attempts: number;
  cycle_attempts: number;
  url: string;
  enabled: boolean;
  deleted_at: Date | null;
  /** The endpoint's sealed signing secret (null: a legacy endpoint not yet given one). */
  secret_ciphertext: string | null;
  /** When its event was recorded (null on rows older than that column). */
  event_recorded_at: Date | null;
}

/** One attempt's outcome, written with the delivery's new state. */
export interface AttemptRecord {
  status: DeliveryStatus;
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  nextAttemptAt: Date | null;
  targetAddress: string | null;
  signedTimestamp: number | null;
  startedAt: Date;
  durationMs: number;
}

/** A delivery by id, and when `within` is given only in that endpoint of that partition: the condition after `id = $1`, and the parameters. */
function withinEndpoint(
  id: number,
  within?: TenantScope & { endpointId: number },
): [string, unknown[]] {
  return within
    ? [
        ' AND app_id = $2 AND mode = $3 AND endpoint_id = $4',
        [id, within.appId, within.mode, within.endpointId],
      ]
    : ['', [id]];
}

/** Every query of webhook_deliveries and webhook_delivery_attempts. */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private compiled?: {
    deliveries: EntitySql<WebhookDelivery>;
    attempts: EntitySql<WebhookAttempt>;
  };

  /** The tables' select lists and hydration (see EntitySql). */
  private get entities() {
    return (this.compiled ??= {
      deliveries: EntitySql.of(this.txHost.tx.connection, WebhookDelivery),
      attempts: EntitySql.of(this.txHost.tx.connection, WebhookAttempt),
    });
  }

  /** Wakes every replica's dispatcher when the current transaction commits. */
  async notifyDue(): Promise<void> {
    await sql(this.txHost.tx).run(`SELECT pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
  }

  // The outbox relay

  /** `n` fresh delivery ids (the body names its delivery, so ids come before the insert). */
  async nextIds(n: number): Promise<number[]> {
    const rows = await sql(this.txHost.tx).rows<{ id: number }>(
      `SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'id')) AS id FROM generate_series(1, $1)`,
      [n],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Inserts the relay's deliveries and, if any is due (PENDING), wakes every
   * replica's dispatcher at commit (NOTIFY, payload `relay`: the dispatcher
   * that pumps right after skips its own echo), in one statement.
   */
  async insertMany(rows: PlannedDelivery[], now: Date, relay = ''): Promise<void> {
    await sql(this.txHost.tx).run(
      `WITH inserted AS (
         INSERT INTO webhook_deliveries
           (id, event_id, endpoint_id, app_id, mode, event_type, body, status, next_attempt_at, last_error, event_recorded_at, created_at, updated_at)
         SELECT d.id, d.event_id, d.endpoint_id, d.app_id, d.mode, d.event_type, d.body, d.status, d.next_attempt_at, d.last_error, d.event_recorded_at, $12, $12
           FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::mode[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::timestamptz[])
             AS d (id, event_id, endpoint_id, app_id, mode, event_type, body, status, next_attempt_at, last_error, event_recorded_at)
         RETURNING status
       )
       SELECT pg_notify($13, $14) WHERE EXISTS (SELECT 1 FROM inserted WHERE status = 'PENDING')`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.eventId),
        rows.map((r) => r.endpointId),
        rows.map((r) => r.appId),
        rows.map((r) => r.mode),
        rows.map((r) => r.eventType),
        rows.map((r) => r.body),
        rows.map((r) => r.status),
        rows.map((r) => r.nextAttemptAt),
        rows.map((r) => r.lastError),
        rows.map((r) => r.eventRecordedAt),
        now,
        DELIVERIES_CHANNEL,
        relay,
      ],
    );
  }

  // Dispatchers

  /**
   * Leases up to `max` due deliveries to `workerId` until `lockedUntil`
   * (FOR UPDATE SKIP LOCKED: replicas never claim the same one), in due
   * order, skipping `fullEndpoints` and giving each endpoint in `busy` at
   * most its free slots (others at most `perEndpoint`).
   */
  claimDue(opts: {
    now: Date;
    max: number;
    fullEndpoints: number[];
    busy: { endpointIds: number[]; slots: number[] };
    perEndpoint: number;
    lockedUntil: Date;
    workerId: string;
  }): Promise<ClaimedDelivery[]> {
    return sql(this.txHost.tx).rows<ClaimedDelivery>(
      `WITH candidates AS (
         SELECT id, endpoint_id, next_attempt_at FROM webhook_deliveries
          WHERE status IN ('PENDING', 'RETRYING') AND next_attempt_at <= $1
            AND (locked_until IS NULL OR locked_until <= $1)
            AND endpoint_id <> ALL($2::bigint[])
          ORDER BY next_attempt_at, id
          LIMIT $3
       ), ranked AS (
         SELECT c.id, c.endpoint_id,
                row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.id) AS rn
           FROM candidates c
       ), allowed AS (
         SELECT r.id FROM ranked r
           LEFT JOIN unnest($4::bigint[], $5::int[]) AS busy (endpoint_id, slots) ON busy.endpoint_id = r.endpoint_id
          WHERE r.rn <= coalesce(busy.slots, $6)
       ), picked AS (
         SELECT d.id FROM webhook_deliveries d
          WHERE d.id IN (SELECT id FROM allowed)
            AND d.status IN ('PENDING', 'RETRYING') AND d.next_attempt_at <= $1
            AND (d.locked_until IS NULL OR d.locked_until <= $1)
          ORDER BY d.next_attempt_at, d.id
          LIMIT $7
          FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE webhook_deliveries d
          SET locked_until = $8, locked_by = $9
         FROM picked, webhook_endpoints e
        WHERE d.id = picked.id AND e.id = d.endpoint_id
       RETURNING d.id, d.event_id, d.endpoint_id, d.app_id, d.mode, d.event_type, d.body, d.attempts, d.cycle_attempts,
                 d.event_recorded_at, e.url, e.enabled, e.deleted_at, e.secret_ciphertext`,
      [
        opts.now,
        opts.fullEndpoints,
        Math.max(opts.max * 4, 200),
        opts.busy.endpointIds,
        opts.busy.slots,
        opts.perEndpoint,
        opts.max,
        opts.lockedUntil,
        opts.workerId,
      ],
    );
  }

  /**
   * Hands leases of `workerId` back and, if any were, wakes every replica's
   * dispatcher (NOTIFY), so another one claims them at once.
   */
  async releaseLeases(ids: number[], workerId: string): Promise<void> {
    await sql(this.txHost.tx).run(
      `WITH released AS (
         UPDATE webhook_deliveries SET locked_until = NULL, locked_by = NULL
          WHERE id = ANY($1::bigint[]) AND locked_by = $2
         RETURNING 1
       )
       SELECT pg_notify($3, '') FROM (SELECT 1) AS one WHERE EXISTS (SELECT 1 FROM released)`,
      [ids, workerId, DELIVERIES_CHANNEL],
    );
  }

  /**
   * Logs a batch of attempts and applies each outcome to its delivery, if
   * `workerId` still holds that delivery's lease (one statement for the
   * batch: a dispatcher finishing hundreds of attempts a second writes them
   * in a few round trips, not one each).
   */
  async recordAttempts(
    batch: { claimed: ClaimedDelivery; record: AttemptRecord }[],
    workerId: string,
    now: Date,
  ): Promise<void> {
    if (batch.length === 0) return;
    const col = <T>(f: (b: { claimed: ClaimedDelivery; record: AttemptRecord }) => T) =>
      batch.map(f);
    await sql(this.txHost.tx).run(
      `WITH a AS (
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::text[], $5::text[], $6::bigint[],
                              $7::timestamptz[], $8::int[], $9::int[], $10::text[], $11::text[], $12::text[], $13::timestamptz[])
           AS a (delivery_id, endpoint_id, attempt_number, url, target_address, signed_timestamp,
                 started_at, duration_ms, status_code, response_excerpt, error, status, next_attempt_at)
       ), logged AS (
         INSERT INTO webhook_delivery_attempts
           (delivery_id, endpoint_id, attempt_number, url, target_address, signed_timestamp, started_at, duration_ms, status_code, response_excerpt, error, worker)
         SELECT delivery_id, endpoint_id, attempt_number, url, target_address, signed_timestamp, started_at, duration_ms, status_code, response_excerpt, error, $14
           FROM a
       )
       UPDATE webhook_deliveries d
          SET status = a.status, attempts = d.attempts + 1, cycle_attempts = d.cycle_attempts + 1,
              next_attempt_at = a.next_attempt_at, last_attempt_at = a.started_at, last_status_code = a.status_code,
              last_error = a.error,
              delivered_at = CASE WHEN a.status = 'DELIVERED' THEN $15::timestamptz ELSE d.delivered_at END,
              locked_until = NULL, locked_by = NULL, updated_at = $15
         FROM a
        WHERE d.id = a.delivery_id AND d.locked_by = $14`,
      [
        col((b) => b.claimed.id),
        col((b) => b.claimed.endpoint_id),
        col((b) => b.claimed.attempts + 1),
        col((b) => b.claimed.url),
        col((b) => b.record.targetAddress),
        col((b) => b.record.signedTimestamp),
        col((b) => b.record.startedAt),
        col((b) => b.record.durationMs),
        col((b) => b.record.statusCode),
        col((b) => (b.record.excerpt === null ? null : b.record.excerpt.replace(/\u0000/g, ''))),
        col((b) => b.record.error),
        col((b) => b.record.status),
        col((b) => b.record.nextAttemptAt),
        workerId,
        now,
      ],
    );
  }

  // History and re-sends

  page(query: PageQuery, filter: DeliveryFilter): Promise<Page<WebhookDelivery>> {
    const qb = this.txHost.tx.createQueryBuilder(WebhookDelivery, 'd');
    if (filter.applicationId) qb.andWhere('d.appId = :appId', { appId: filter.applicationId });
    if (filter.appIds) qb.andWhere('d.appId = ANY(:appIds)', { appIds: filter.appIds });
    if (filter.mode) qb.andWhere('d.mode = :mode', { mode: filter.mode });
    if (filter.endpointId)
      qb.andWhere('d.endpointId = :endpointId', { endpointId: filter.endpointId });
    if (filter.status) qb.andWhere('d.status = :status', { status: filter.status });
    if (filter.eventType) qb.andWhere('d.eventType = :eventType', { eventType: filter.eventType });
    const where = { appId: filter.applicationId, mode: filter.mode };
    return pageOf(qb, 'd', query, {
      partitioned: !!(where.appId && where.mode),
      total:
        !filter.endpointId && !filter.status && !filter.eventType && !filter.appIds
          ? () => countedRows(this.txHost.tx, 'webhook_deliveries', where)
          : undefined,
    });
  }

  /** The app a delivery belongs to, or null when there is none. */
  async appOf(id: number): Promise<number | null> {
    const row = await sql(this.txHost.tx).one<{ app_id: string }>(
      `SELECT app_id FROM webhook_deliveries WHERE id = $1`,
      [id],
    );
    return row ? Number(row.app_id) : null;
  }

  /** The delivery with its body (optionally only within one endpoint of a partition). */
  async withBody(
    id: number,
    within?: TenantScope & { endpointId: number },
  ): Promise<WebhookDelivery | null> {
    const d = this.entities.deliveries;
    const [scoped, params] = withinEndpoint(id, within);
    const [row] = await d.rows(
      this.txHost.tx,
      `SELECT ${d.selectList}, "body" AS "body" FROM ${d.table} WHERE id = $1${scoped}`,
      params,
    );
    return row ?? null;
  }

  attemptsOf(deliveryId: number): Promise<WebhookAttempt[]> {
    const a = this.entities.attempts;
    return a.rows(
      this.txHost.tx,
      `SELECT ${a.selectList} FROM ${a.table} WHERE delivery_id = $1 ORDER BY id ASC`,
      [deliveryId],
    );
  }

  async byId(id: number): Promise<WebhookDelivery | null> {
    const d = this.entities.deliveries;
    const [row] = await d.rows(
      this.txHost.tx,
      `SELECT ${d.selectList} FROM ${d.table} WHERE id = $1 LIMIT 1`,
      [id],
    );
    return row ?? null;
  }

  /** Row-locked (FOR UPDATE) until the transaction ends, optionally only within one endpoint. */
  async lock(
    id: number,
    within?: TenantScope & { endpointId: number },
  ): Promise<WebhookDelivery | null> {
    const d = this.entities.deliveries;
    const [scoped, params] = withinEndpoint(id, within);
    const [row] = await d.rows(
      this.txHost.tx,
      `SELECT ${d.selectList} FROM ${d.table} WHERE id = $1${scoped} LIMIT 1 FOR UPDATE`,
      params,
    );
    return row ?? null;
  }

  /** Back to PENDING now, the retry schedule starting over. */
  async requeue(id: number, now: Date): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE webhook_deliveries
          SET status = 'PENDING', next_attempt_at = $2, cycle_attempts = 0, locked_until = NULL, locked_by = NULL, updated_at = $2
        WHERE id = $1`,
      [id, now],
    );
  }

  /** Every PARKED delivery of the endpoint back to PENDING now; how many. */
  async requeueParked(endpointId: number, now: Date): Promise<number> {
    const rows = await sql(this.txHost.tx).rows<{ id: number }>(
      `UPDATE webhook_deliveries
          SET status = 'PENDING', next_attempt_at = $2, cycle_attempts = 0, locked_until = NULL, locked_by = NULL, updated_at = $2
        WHERE endpoint_id = $1 AND status = 'PARKED'
       RETURNING id`,
      [endpointId, now],
    );
    return rows.length;
  }

  /** Parks the endpoint's waiting deliveries (not one being attempted right now). */
  async parkWaitingOf(endpointId: number, error: string, now: Date): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE webhook_deliveries SET status = 'PARKED', next_attempt_at = NULL, last_error = $2, updated_at = $3
        WHERE endpoint_id = $1 AND status IN ('PENDING', 'RETRYING') AND (locked_until IS NULL OR locked_until <= $3)`,
      [endpointId, error, now],
    );
  }

  /** Deliveries of these events, in id order. */
  ofEvents(eventIds: number[]): Promise<WebhookDelivery[]> {
    if (eventIds.length === 0) return Promise.resolve([]);
    const d = this.entities.deliveries;
    return d.rows(
      this.txHost.tx,
      `SELECT ${d.selectList} FROM ${d.table} WHERE event_id = ANY($1::bigint[]) ORDER BY id ASC`,
      [eventIds],
    );
  }

  // Retention

  /**
   * Deletes up to `batch` finished deliveries of `mode` created before
   * `before`, with their attempt logs; how many deliveries went.
   */
  async purgeFinished(mode: Mode, before: Date, batch: number): Promise<number> {
    return sql(this.txHost.tx).run(
      `WITH doomed AS (
         SELECT id FROM webhook_deliveries
          WHERE mode = $1 AND created_at < $2 AND status NOT IN ('PENDING', 'RETRYING')
          LIMIT $3),
       gone_attempts AS (
         DELETE FROM webhook_delivery_attempts WHERE delivery_id IN (SELECT id FROM doomed))
       DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM doomed) RETURNING id`,
      [mode, before, batch],
    );
  }

  /** Which of these events some delivery still refers to. */
  async eventIdsReferenced(eventIds: number[]): Promise<Set<number>> {
    const rows = await sql(this.txHost.tx).rows<{ event_id: number }>(
      `SELECT DISTINCT event_id FROM webhook_deliveries WHERE event_id = ANY($1::bigint[])`,
      [eventIds],
    );
    return new Set(rows.map((r) => Number(r.event_id)));
  }
}
