/** The webhooks feature's public door. */
export { WebhookDeliveriesService } from './delivery/webhook-deliveries.service';
export { WebhookWorkers } from './delivery/webhook-workers';
export { WebhooksModule } from './webhooks.module';
