import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Clock } from '../common/clock/clock';
import type { TenantScope } from '../database/tenant';
import { EventType, isEventType, statusOfType } from './event-catalogue';
import { Page } from '../common/http/envelope';
import type { PageQuery } from '../common/http/pagination';
import { EventRecord } from './event.entity';
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
  ) {}

  async record(
    scope: TenantScope,
    type: EventType | string,
    data: Record<string, unknown>,
  ): Promise<EventRecord> {
    if (!isEventType(type)) throw new Error(`Event type ${type} is not in the catalogue`);
    if (!this.txHost.isTransactionActive()) {
      throw new Error('EventsService.record must run inside the transaction of the state change');
    }
    const status = statusOfType(type);
    const payload = status === undefined ? data : { ...data, status };
    return this.events.insert({
      appId: scope.appId,
      mode: scope.mode,
      type,
      data: payload,
      createdAt: this.clock.now(),
    });
  }

  /** Recorded events of one app and mode, newest first by default. */
  list(
    scope: TenantScope,
    query: PageQuery,
    filter: { type?: string } = {},
  ): Promise<Page<EventRecord>> {
    return this.events.page(scope, query, filter);
  }
}
