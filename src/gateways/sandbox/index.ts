/** The sandbox adapter's door (the test helpers drive its checkout as a customer would). */
export { SandboxGatewayModule } from './sandbox-gateway.module';
export { SandboxGateway, type SandboxChoice } from './sandbox.gateway';
