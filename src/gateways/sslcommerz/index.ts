/** The SSLCommerz adapter's door. */
export { SslcommerzGatewayModule } from './sslcommerz-gateway.module';
export { SslcommerzGateway } from './sslcommerz.gateway';
