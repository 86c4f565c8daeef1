import { Module } from '@nestjs/common';

import { AuthModule } from '../auth';
import { CustomersModule } from '../customers';
import { EntitlementsModule } from '../entitlements';
import { InvoicesModule } from '../invoices';
import { PaymentsModule } from '../payments';
import { SubscriptionsModule } from '../subscriptions';
import { CustomerProfilesController } from './customer-profiles.controller';
import { CustomerProfilesService } from './customer-profiles.service';

/** GET /api/v1/customers and GET /api/v1/customers/{reference}: customers and their records, read through the features that own them. */
@Module({
  imports: [
    AuthModule,
    CustomersModule,
    EntitlementsModule,
    InvoicesModule,
    PaymentsModule,
    SubscriptionsModule,
  ],
  controllers: [CustomerProfilesController],
  providers: [CustomerProfilesService],
})
export class CustomerProfilesModule {}
