import { Injectable, Logger } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { Clock } from '../common/clock/clock';
import { Page } from '../common/http/envelope';
import type { PageQuery } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import { AppConfig } from '../config/app-config';
import type { TenantScope } from '../database/tenant';
import { EventRecord } from './event.entity';
import { EventType, isEventType, statusOfType } from './event-catalogue';
import { eventDataProblems } from './event-payloads';
import { EventsRepository } from './events.repository';

/** The event record other features receive from this service. */
export type { EventRecord } from './event.entity';

/**
 * The outbox. `record` writes an event inside the caller's transaction, so a
 * state change and the events it causes commit (or roll back) together.
 * Delivery reads this table later; nothing is sent from here.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly events: EventsRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  private readonly logger = new Logger('Events');

  async record(
    scope: TenantScope,
    type: EventType | string,
    data: Record<string, unknown>,
  ): Promise<number> {
    if (!isEventType(type)) throw new Error(`Event type ${type} is not in the catalogue`);
    if (!this.txHost.isTransactionActive()) {
      throw new Error('EventsService.record must run inside the transaction of the state change');
    }
    const status = statusOfType(type);
    const payload = status === undefined ? data : { ...data, status };
    // The published contract (event-payloads.ts), checked on the JSON consumers receive.
    const problems = eventDataProblems(type, JSON.parse(JSON.stringify(payload)) as typeof data);
    if (problems.length) {
      const message = `Event ${type} strays from its schema: ${problems.join('; ')}`;
      if (this.config.strictEventData) throw new Error(message);
      this.logger.error(message);
    }
    return this.events.insert({
      appId: scope.appId,
      mode: scope.mode,
      type,
      data: payload,
      createdAt: this.clock.now(),
    });
  }

  /** Recorded events of one app and mode, newest first by default (`afterId`: only later ones). */
  list(
    scope: TenantScope,
    query: PageQuery,
    filter: { type?: string; afterId?: number } = {},
  ): Promise<Page<EventRecord>> {
    return this.events.page(scope, query, filter);
  }

  /**
   * For the outbox relay, inside its transaction: up to `limit` committed
   * events not yet fanned out, oldest first, each claimed by one relay
   * (FOR UPDATE SKIP LOCKED) and marked fanned out at `at`; the relay writes
   * their deliveries in the same transaction, so both commit or neither.
   */
  claimForFanout(limit: number, at: Date): Promise<EventRecord[]> {
    if (!this.txHost.isTransactionActive()) {
      throw new Error('EventsService.claimForFanout must run inside the relay transaction');
    }
    return this.events.claimPendingFanout(limit, at);
  }

  /**
   * Retention: deletes the fanned-out events of `mode` created before
   * `before`, a batch at a time, except those `stillNeeded` keeps (the
   * relay's consumer knows which events it still refers to). How many went.
   */
  async purgeBefore(
    mode: Mode,
    before: Date,
    stillNeeded: (ids: number[]) => Promise<Set<number>>,
    batch = 5000,
  ): Promise<number> {
    let total = 0;
    let afterId = 0;
    for (;;) {
      const ids = await this.events.fannedOutBefore(mode, before, afterId, batch);
      if (ids.length === 0) return total;
      const keep = await stillNeeded(ids);
      total += await this.events.deleteByIds(ids.filter((id) => !keep.has(id)));
      if (ids.length < batch) return total;
      afterId = ids[ids.length - 1];
    }
  }
}
