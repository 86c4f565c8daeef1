import { Injectable } from '@nestjs/common';

import { Page } from '../../common/http/envelope';
import { PageQuery } from '../../common/http/pagination';
import type { TenantScope } from '../../database/tenant';
import { EventRecord, EventsService } from '../../events';
import { WebhookDeliveriesRepository } from '../delivery/webhook-deliveries.repository';
import type { WebhookDelivery } from '../delivery/webhook-delivery.entity';

/** GET /events: an app's recorded events of its key's mode, with what became of each. */
@Injectable()
export class WebhookEventsService {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly events: EventsService,
  ) {}

  async list(
    scope: TenantScope,
    query: PageQuery,
    filter: { type?: string; afterId?: number },
  ): Promise<Page<{ event: EventRecord; deliveries: WebhookDelivery[] }>> {
    const page = await this.events.list(scope, query, filter);
    const ids = page.items.map((e) => e.id);
    const deliveries = await this.deliveries.ofEvents(ids);
    const byEvent = new Map<number, WebhookDelivery[]>();
    for (const d of deliveries) byEvent.set(d.eventId, [...(byEvent.get(d.eventId) ?? []), d]);
    return new Page(
      page.items.map((event) => ({ event, deliveries: byEvent.get(event.id) ?? [] })),
      page.pagination,
    );
  }
}
