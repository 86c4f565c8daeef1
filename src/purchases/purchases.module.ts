import { Module } from '@nestjs/common';

import { AuthModule } from '../auth';
import { CatalogModule } from '../catalog';
import { InvoicesModule } from '../invoices';
import { SubscriptionsModule } from '../subscriptions';
import { PurchasesController } from './purchases.controller';
import { PurchasesService } from './purchases.service';

@Module({
  imports: [AuthModule, CatalogModule, InvoicesModule, SubscriptionsModule],
  controllers: [PurchasesController],
  providers: [PurchasesService],
  exports: [PurchasesService],
})
export class PurchasesModule {}
