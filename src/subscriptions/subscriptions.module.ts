import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { CustomersModule } from '../customers';
import { EntitlementsModule } from '../entitlements';
import { InvoicesModule } from '../invoices';
import { PaymentsModule } from '../payments';
import { Subscription } from './subscription.entity';
import { SubscriptionBenefitsSubscriber } from './subscription-benefits.subscriber';
import { SubscriptionBillingSubscriber } from './subscription-billing.subscriber';
import { SubscriptionLifecycle } from './subscription-lifecycle';
import { SubscriptionRenewalJob } from './subscription-renewal.job';
import { AdminSubscriptionsController, SubscriptionsController } from './subscriptions.controller';
import { SubscriptionsRepository } from './subscriptions.repository';
import { SubscriptionsService } from './subscriptions.service';

/** Subscriptions: lifecycle, renewals and dunning, following their invoices. */
@Module({
  imports: [
    AuditModule,
    AuthModule,
    CustomersModule,
    EntitlementsModule,
    InvoicesModule,
    PaymentsModule,
    TypeOrmModule.forFeature([Subscription]),
  ],
  controllers: [SubscriptionsController, AdminSubscriptionsController],
  providers: [
    SubscriptionsRepository,
    SubscriptionLifecycle,
    SubscriptionsService,
    SubscriptionBillingSubscriber,
    SubscriptionBenefitsSubscriber,
    SubscriptionRenewalJob,
  ],
  exports: [SubscriptionsService, SubscriptionRenewalJob],
})
export class SubscriptionsModule {}
