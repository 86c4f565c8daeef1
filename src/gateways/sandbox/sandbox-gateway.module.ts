import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SandboxCheckoutController } from './sandbox-checkout.controller';
import { SandboxSession } from './sandbox-session.entity';
import { SandboxSessionsRepository } from './sandbox-sessions.repository';
import { SandboxGateway } from './sandbox.gateway';

/** The built-in sandbox gateway (TEST mode): its sessions, checkout page and adapter. */
@Module({
  imports: [TypeOrmModule.forFeature([SandboxSession])],
  controllers: [SandboxCheckoutController],
  providers: [SandboxSessionsRepository, SandboxGateway],
  exports: [SandboxGateway],
})
export class SandboxGatewayModule {}
