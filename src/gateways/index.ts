/** The gateways feature's public door: the registry, the port adapters implement, and the adapters. */
export { BkashGatewayModule } from './bkash';
export { GatewayCredentialsRemoved } from './credentials/gateway-credentials-events';
export { GatewayAdapter } from './gateway-adapter.decorator';
export { GatewayRegistry } from './gateway-registry.service';
export { GatewaysModule } from './gateways.module';
export { gatewayErrorText } from './http/gateway-error-text';
export { NagadGatewayModule } from './nagad';
export type * from './payment-gateway.types';
export { GATEWAY_NAMES } from './payment-gateway.types';
export { type SandboxChoice, SandboxGateway, SandboxGatewayModule } from './sandbox';
export { SslcommerzGatewayModule } from './sslcommerz';
