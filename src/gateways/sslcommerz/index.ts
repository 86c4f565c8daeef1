/** The SSLCommerz adapter's door. */
export { SslcommerzGateway } from './sslcommerz.gateway';
export { SslcommerzGatewayModule } from './sslcommerz-gateway.module';
