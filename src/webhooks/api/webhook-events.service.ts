import { Injectable } from '@nestjs/common';

import { Page } from '../../common/http/envelope';
import { PageQuery } from '../../common/http/pagination';
import { ReplicaReads } from '../../database/replica-reads';
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
    private readonly reads: ReplicaReads,
  ) {}

  async list(
    scope: TenantScope,
    query: PageQuery,
    filter: { type?: string; afterId?: number },
  ): Promise<Page<{ event: EventRecord; deliveries: WebhookDelivery[] }>> {
    // A list: on the read replica once it has caught up (docs/operations.md, "A read replica");
    // the events and their deliveries from the same server.
    const { page, deliveries } = await this.reads.read(async () => {
      const page = await this.events.list(scope, query, filter);
      return { page, deliveries: await this.deliveries.ofEvents(page.items.map((e) => e.id)) };
    });
    const byEvent = new Map<number, WebhookDelivery[]>();
    for (const d of deliveries) byEvent.set(d.eventId, [...(byEvent.get(d.eventId) ?? []), d]);
    return new Page(
      page.items.map((event) => ({ event, deliveries: byEvent.get(event.id) ?? [] })),
      page.pagination,
    );
  }
}
