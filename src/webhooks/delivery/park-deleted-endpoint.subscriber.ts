import { Injectable } from '@nestjs/common';

import { OnDomainEvent } from '../../common/domain-events';
import { WebhookEndpointDeleted } from '../endpoints/webhook-endpoint-events';
import { DeliveryError } from './delivery-status';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';

/**
 * A deleted endpoint's waiting deliveries are parked in the transaction that
 * deletes it (one being attempted right now finishes and records its result;
 * the dispatcher parks it at its next turn).
 */
@Injectable()
export class ParkDeletedEndpointSubscriber {
  constructor(private readonly deliveries: WebhookDeliveriesRepository) {}

  @OnDomainEvent(WebhookEndpointDeleted)
  async onEndpointDeleted(fact: WebhookEndpointDeleted): Promise<void> {
    await this.deliveries.parkWaitingOf(fact.endpointId, DeliveryError.ENDPOINT_DELETED, fact.at);
  }
}
