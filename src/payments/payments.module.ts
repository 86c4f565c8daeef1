import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppsModule } from '../apps/apps.module';
import { AuthModule } from '../auth/auth.module';
import { CustomersModule } from '../customers/customers.module';
import { EventsModule } from '../events/events.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { GatewayCallbacksController } from './gateway-callbacks.controller';
import { Payment } from './payment.entity';
import { PaymentExpiryJob } from './payment-expiry.job';
import {
  AdminPaymentsController,
  CustomerPaymentsController,
  PaymentsController,
} from './payments.controller';
import { PaymentsService } from './payments.service';

@Module({
  imports: [
    AuthModule,
    AppsModule,
    CustomersModule,
    EventsModule,
    GatewaysModule,
    TypeOrmModule.forFeature([Payment]),
  ],
  controllers: [
    PaymentsController,
    CustomerPaymentsController,
    AdminPaymentsController,
    GatewayCallbacksController,
  ],
  providers: [PaymentsService, PaymentExpiryJob],
  exports: [PaymentsService, PaymentExpiryJob],
})
export class PaymentsModule {}
