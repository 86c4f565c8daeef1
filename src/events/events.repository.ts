import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import { countedRows } from '../database/list-counts';
import { sql } from '../database/sql';
import type { TenantScope } from '../database/tenant';
import { EventRecord } from './event.entity';
import type { EventType } from './event-catalogue';

/** Every query of the events table (the outbox). */
@Injectable()
export class EventsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** Writes one event in the caller's transaction (it commits, or rolls back, with the change); answers its id. */
  async insert(fields: Omit<EventRecord, 'id'>): Promise<number> {
    const [row] = await sql(this.txHost.tx).rows<{ id: string }>(
      'INSERT INTO events (app_id, mode, type, data, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id',
      [fields.appId, fields.mode, fields.type, JSON.stringify(fields.data), fields.createdAt],
    );
    return Number(row.id);
  }

  page(
    scope: TenantScope,
    query: PageQuery,
    filter: { type?: string; afterId?: number },
  ): Promise<Page<EventRecord>> {
    const qb = this.txHost.tx
      .createQueryBuilder(EventRecord, 'ev')
      .where('ev.appId = :appId AND ev.mode = :mode', { appId: scope.appId, mode: scope.mode });
    if (filter.type) qb.andWhere('ev.type = :type', { type: filter.type });
    if (filter.afterId !== undefined) qb.andWhere('ev.id > :afterId', { afterId: filter.afterId });
    const filtered = filter.type !== undefined || filter.afterId !== undefined;
    return pageOf(qb, 'ev', query, {
      total: filtered ? undefined : () => countedRows(this.txHost.tx, 'events', scope),
    });
  }

  /**
   * Up to `limit` events not yet fanned out, oldest first, marked fanned out
   * at `at` in the same statement. Rows are taken FOR UPDATE SKIP LOCKED, so
   * each event is claimed by one relay; the caller's transaction writes their
   * deliveries, and a rollback undoes the mark with them.
   */
  async claimPendingFanout(limit: number, at: Date): Promise<EventRecord[]> {
    const rows = await sql(this.txHost.tx).rows<{
      id: number;
      app_id: number;
      mode: Mode;
      type: string;
      data: Record<string, unknown>;
      created_at: Date;
    }>(
      `WITH picked AS (
         SELECT id FROM events WHERE fanned_out_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
       )
       UPDATE events e SET fanned_out_at = $2 FROM picked WHERE e.id = picked.id
       RETURNING e.id, e.app_id, e.mode, e.type, e.data, e.created_at`,
      [limit, at],
    );
    return rows
      .sort((a, b) => a.id - b.id)
      .map((r) =>
        Object.assign(new EventRecord(), {
          id: r.id,
          appId: r.app_id,
          mode: r.mode,
          type: r.type as EventType,
          data: r.data,
          createdAt: r.created_at,
        }),
      );
  }

  /** Ids of fanned-out events of `mode` created before `before`, above `afterId`, in id order. */
  async fannedOutBefore(
    mode: Mode,
    before: Date,
    afterId: number,
    limit: number,
  ): Promise<number[]> {
    const rows = await sql(this.txHost.tx).rows<{ id: number }>(
      `SELECT id FROM events
        WHERE mode = $1 AND created_at < $2 AND fanned_out_at IS NOT NULL AND id > $3
        ORDER BY id LIMIT $4`,
      [mode, before, afterId, limit],
    );
    return rows.map((r) => Number(r.id));
  }

  async deleteByIds(ids: number[]): Promise<number> {
    if (ids.length === 0) return 0;
    return sql(this.txHost.tx).run(`DELETE FROM events WHERE id = ANY($1::bigint[])`, [ids]);
  }
}
