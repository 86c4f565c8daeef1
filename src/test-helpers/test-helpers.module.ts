import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { PaymentsModule } from '../payments/payments.module';
import { TestHelpersController } from './test-helpers.controller';
import { TestHelpersService } from './test-helpers.service';

@Module({
  imports: [AuthModule, PaymentsModule, GatewaysModule],
  controllers: [TestHelpersController],
  providers: [TestHelpersService],
})
export class TestHelpersModule {}
