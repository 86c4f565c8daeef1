import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { EventsModule } from '../events';
import { AdminWebhooksController } from './admin-webhooks.controller';
import { EventsController } from './events.controller';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookEventsService } from './webhook-events.service';
import { WebhookFanout } from './webhook-fanout';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookWorkers } from './webhook-workers';

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
    WebhookEndpointsService,
    WebhookDeliveriesService,
    WebhookEventsService,
    WebhookFanout,
    WebhookDispatcher,
    WebhookWorkers,
    WebhookMetrics,
  ],
  exports: [WebhookWorkers, WebhookDeliveriesService],
})
export class WebhooksModule {}
