/** The gateways feature's public door: the registry, the port adapters implement, and the adapters. */
export { GatewaysModule } from './gateways.module';
export { GatewayRegistry } from './gateway-registry.service';
export { GatewayAdapter } from './gateway-adapter.decorator';
export { gatewayErrorText } from './http/gateway-error-text';
export type * from './payment-gateway.types';
export { SandboxGatewayModule, SandboxGateway, type SandboxChoice } from './sandbox';
export { SslcommerzGatewayModule } from './sslcommerz';
export { BkashGatewayModule } from './bkash';
