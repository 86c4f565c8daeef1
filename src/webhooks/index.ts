/** The webhooks feature's public door. */
export { WebhooksModule } from './webhooks.module';
export { WebhookDeliveriesService } from './delivery/webhook-deliveries.service';
export { WebhookWorkers } from './delivery/webhook-workers';
