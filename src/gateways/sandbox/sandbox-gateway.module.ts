import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { SandboxGateway } from './sandbox.gateway';
import { SandboxCheckoutController } from './sandbox-checkout.controller';
import { SandboxSession } from './sandbox-session.entity';
import { SandboxSessionsRepository } from './sandbox-sessions.repository';

/** The built-in sandbox gateway (TEST mode): its sessions, checkout page and adapter. */
@Module({
  imports: [TypeOrmModule.forFeature([SandboxSession])],
  controllers: [SandboxCheckoutController],
  providers: [SandboxSessionsRepository, SandboxGateway],
  exports: [SandboxGateway],
})
export class SandboxGatewayModule {}
