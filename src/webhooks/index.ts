/** The webhooks feature's public door. */
export { WebhooksModule } from './webhooks.module';
export { WebhookDeliveriesService } from './webhook-deliveries.service';
