import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import type { TenantScope } from '../database/tenant';
import { EventRecord } from './event.entity';

/** Every query of the events table (the outbox). */
@Injectable()
export class EventsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private get events() {
    return this.txHost.tx.getRepository(EventRecord);
  }

  insert(fields: Omit<EventRecord, 'id'>): Promise<EventRecord> {
    return this.events.save(this.events.create(fields));
  }

  page(
    scope: TenantScope,
    query: PageQuery,
    filter: { type?: string },
  ): Promise<Page<EventRecord>> {
    const qb = this.events
      .createQueryBuilder('ev')
      .where('ev.appId = :appId AND ev.mode = :mode', { appId: scope.appId, mode: scope.mode });
    if (filter.type) qb.andWhere('ev.type = :type', { type: filter.type });
    return pageOf(qb, 'ev', query);
  }
}
