import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AppsModule } from '../apps';
import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { CustomersModule } from '../customers';
import { GatewaysModule } from '../gateways';
import { IdempotencyModule } from '../idempotency';
import { InvoicesModule } from '../invoices';
import { PaymentsModule } from '../payments';
import { ExcessRefundSubscriber } from './excess-refund.subscriber';
import { GatewayInFlightSubscriber } from './gateway-in-flight.subscriber';
import { Refund } from './refund.entity';
import { RefundListsService } from './refund-lists.service';
import { RefundRecheckJob } from './refund-recheck.job';
import { AdminRefundsController, RefundsController } from './refunds.controller';
import { RefundsRepository } from './refunds.repository';
import { RefundsService } from './refunds.service';

/** Refunds of captured payments, through the gateway port, with operator approval above a threshold. */
@Module({
  imports: [
    AppsModule,
    AuditModule,
    AuthModule,
    CustomersModule,
    GatewaysModule,
    IdempotencyModule,
    InvoicesModule,
    PaymentsModule,
    TypeOrmModule.forFeature([Refund]),
  ],
  controllers: [RefundsController, AdminRefundsController],
  providers: [
    RefundsRepository,
    RefundsService,
    RefundListsService,
    RefundRecheckJob,
    ExcessRefundSubscriber,
    GatewayInFlightSubscriber,
  ],
  exports: [RefundsService, RefundRecheckJob],
})
export class RefundsModule {}
