import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AppsModule } from '../apps';
import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { CustomersModule } from '../customers';
import { GatewaysModule } from '../gateways';
import { IdempotencyModule } from '../idempotency';
import { GatewayCallbacksController } from './gateway-callbacks.controller';
import { Payment } from './payment.entity';
import { PaymentConfirmationsService } from './payment-confirmations.service';
import { PaymentExpiryJob } from './payment-expiry.job';
import { PaymentSimulationService } from './payment-simulation.service';
import { PaymentTransitions } from './payment-transitions';
import {
  AdminPaymentsController,
  CustomerPaymentsController,
  PaymentsController,
} from './payments.controller';
import { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';

@Module({
  imports: [
    AuthModule,
    AppsModule,
    AuditModule,
    CustomersModule,
    GatewaysModule,
    IdempotencyModule,
    TypeOrmModule.forFeature([Payment]),
  ],
  controllers: [
    PaymentsController,
    CustomerPaymentsController,
    AdminPaymentsController,
    GatewayCallbacksController,
  ],
  providers: [
    PaymentsRepository,
    PaymentTransitions,
    PaymentsService,
    PaymentConfirmationsService,
    PaymentSimulationService,
    PaymentExpiryJob,
  ],
  exports: [
    PaymentsService,
    PaymentConfirmationsService,
    PaymentSimulationService,
    PaymentExpiryJob,
  ],
})
export class PaymentsModule {}
