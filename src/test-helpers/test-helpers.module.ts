import { Module } from '@nestjs/common';

import { AuthModule } from '../auth';
import { SandboxGatewayModule } from '../gateways';
import { PaymentsModule } from '../payments';
import { SubscriptionsModule } from '../subscriptions';
import { TestHelpersController } from './test-helpers.controller';
import { TestHelpersService } from './test-helpers.service';

@Module({
  imports: [AuthModule, PaymentsModule, SandboxGatewayModule, SubscriptionsModule],
  controllers: [TestHelpersController],
  providers: [TestHelpersService],
})
export class TestHelpersModule {}
