import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuthModule } from '../auth';
import { CatalogModule } from '../catalog';
import { CustomersModule } from '../customers';
import { InvoicesModule } from '../invoices';
import { Entitlement } from './entitlement.entity';
import { EntitlementsController } from './entitlements.controller';
import { EntitlementsRepository } from './entitlements.repository';
import { EntitlementsService } from './entitlements.service';
import { OneTimeGrantsSubscriber } from './one-time-grants.subscriber';

/** Who holds which benefit: grants and revocations, and the customer's entitlements route. */
@Module({
  imports: [
    AuthModule,
    CatalogModule,
    CustomersModule,
    InvoicesModule,
    TypeOrmModule.forFeature([Entitlement]),
  ],
  controllers: [EntitlementsController],
  providers: [EntitlementsRepository, EntitlementsService, OneTimeGrantsSubscriber],
  exports: [EntitlementsService],
})
export class EntitlementsModule {}
