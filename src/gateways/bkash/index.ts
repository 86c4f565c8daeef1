/** The bKash adapter's door. */
export { BkashGateway } from './bkash.gateway';
export { BkashGatewayModule } from './bkash-gateway.module';
