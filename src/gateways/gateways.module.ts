import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GatewaysService } from './gateways.service';
import { SandboxCheckoutController } from './sandbox/sandbox-checkout.controller';
import { SandboxSession } from './sandbox/sandbox-session.entity';
import { SandboxGateway } from './sandbox/sandbox.gateway';

/** Payment gateway adapters behind the PaymentGateway port. */
@Module({
  imports: [TypeOrmModule.forFeature([SandboxSession])],
  controllers: [SandboxCheckoutController],
  providers: [SandboxGateway, GatewaysService],
  exports: [GatewaysService, SandboxGateway],
})
export class GatewaysModule {}
