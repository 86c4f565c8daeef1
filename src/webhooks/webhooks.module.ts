import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { EventsModule } from '../events';
import { AdminWebhooksController } from './api/admin-webhooks.controller';
import { EventsController } from './api/events.controller';
import { WebhookEndpointsController } from './api/webhook-endpoints.controller';
import { WebhookEventsService } from './api/webhook-events.service';
import { DeliveryAttempt } from './delivery/delivery-attempt';
import { ParkDeletedEndpointSubscriber } from './delivery/park-deleted-endpoint.subscriber';
import { WebhookAttempt } from './delivery/webhook-attempt.entity';
import { WebhookDeliveriesRepository } from './delivery/webhook-deliveries.repository';
import { WebhookDeliveriesService } from './delivery/webhook-deliveries.service';
import { WebhookDelivery } from './delivery/webhook-delivery.entity';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { WebhookFanout } from './delivery/webhook-fanout';
import { WebhookMetrics } from './delivery/webhook-metrics';
import { WebhookWorkers } from './delivery/webhook-workers';
import { WebhookEndpoint } from './endpoints/webhook-endpoint.entity';
import { WebhookEndpointsRepository } from './endpoints/webhook-endpoints.repository';
import { WebhookEndpointsService } from './endpoints/webhook-endpoints.service';

/**
 * Outbound webhooks: endpoint management, the outbox relay (fan-out), the
 * dispatcher, delivery history and operator re-sends, and GET /events.
 * Other features never call this module; they record events through
 * EventsService inside their own transactions.
 */
@Module({
  imports: [
    AuditModule,
    AuthModule,
    EventsModule,
    TypeOrmModule.forFeature([WebhookEndpoint, WebhookDelivery, WebhookAttempt]),
  ],
  controllers: [WebhookEndpointsController, EventsController, AdminWebhooksController],
  providers: [
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    ParkDeletedEndpointSubscriber,
    WebhookEndpointsService,
    WebhookDeliveriesService,
    WebhookEventsService,
    WebhookFanout,
    DeliveryAttempt,
    WebhookDispatcher,
    WebhookWorkers,
    WebhookMetrics,
  ],
  exports: [WebhookWorkers, WebhookDeliveriesService],
})
export class WebhooksModule {}
