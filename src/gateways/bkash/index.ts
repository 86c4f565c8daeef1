/** The bKash adapter's door. */
export { BkashGatewayModule } from './bkash-gateway.module';
export { BkashGateway } from './bkash.gateway';
