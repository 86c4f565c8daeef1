/** The sandbox adapter's door (the test helpers drive its checkout as a customer would). */
export { type SandboxChoice, SandboxGateway } from './sandbox.gateway';
export { SandboxGatewayModule } from './sandbox-gateway.module';
