import { Injectable } from '@nestjs/common';

import { DomainEvent, HandlerOrder, OnDomainEvent } from '../common/domain-events';
import { EventsService } from './events.service';

/**
 * The outbox as a subscriber: every published fact that has a webhook form is
 * recorded, last, in the transaction of the state change.
 */
@Injectable()
export class OutboxSubscriber {
  constructor(private readonly events: EventsService) {}

  @OnDomainEvent(DomainEvent, { order: HandlerOrder.OUTBOX })
  async record(fact: DomainEvent): Promise<void> {
    const entry = fact.outbox();
    if (entry) await this.events.record(fact.scope, entry.type, entry.data);
  }
}
