/** The Nagad adapter's door. */
export { NagadGateway } from './nagad.gateway';
export { NagadGatewayModule } from './nagad-gateway.module';
