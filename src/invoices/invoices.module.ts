import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppsModule } from '../apps/apps.module';
import { AuthModule } from '../auth/auth.module';
import { CustomersModule } from '../customers/customers.module';
import { EventsModule } from '../events/events.module';
import { PaymentsModule } from '../payments/payments.module';
import { Invoice, InvoiceLineItem, InvoiceTemplate } from './invoice.entity';
import { AdminInvoicesController, InvoicesController } from './invoices.controller';
import { InvoicesService } from './invoices.service';
import { PayPageController } from './pay-page.controller';

@Module({
  imports: [
    AuthModule,
    AppsModule,
    CustomersModule,
    EventsModule,
    PaymentsModule,
    TypeOrmModule.forFeature([Invoice, InvoiceLineItem, InvoiceTemplate]),
  ],
  controllers: [InvoicesController, AdminInvoicesController, PayPageController],
  providers: [InvoicesService],
  exports: [InvoicesService],
})
export class InvoicesModule {}
