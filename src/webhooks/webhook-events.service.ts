import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { In } from 'typeorm';
import { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import type { TenantScope } from '../database/tenant';
import { EventRecord } from '../events/event.entity';
import { WebhookDelivery } from './webhook-delivery.entity';

/** GET /events: an app's recorded events of its key's mode, with what became of each. */
@Injectable()
export class WebhookEventsService {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async list(scope: TenantScope, query: PageQuery, filter: { type?: string }): Promise<Page<{ event: EventRecord; deliveries: WebhookDelivery[] }>> {
    const qb = this.txHost.tx
      .getRepository(EventRecord)
      .createQueryBuilder('ev')
      .where('ev.appId = :appId AND ev.mode = :mode', { appId: scope.appId, mode: scope.mode });
    if (filter.type) qb.andWhere('ev.type = :type', { type: filter.type });
    const page = await pageOf(qb, 'ev', query);
    const ids = page.items.map((e) => e.id);
    const deliveries = ids.length
      ? await this.txHost.tx.getRepository(WebhookDelivery).find({ where: { eventId: In(ids) }, order: { id: 'ASC' } })
      : [];
    const byEvent = new Map<number, WebhookDelivery[]>();
    for (const d of deliveries) byEvent.set(d.eventId, [...(byEvent.get(d.eventId) ?? []), d]);
    return new Page(
      page.items.map((event) => ({ event, deliveries: byEvent.get(event.id) ?? [] })),
      page.pagination,
    );
  }
}
