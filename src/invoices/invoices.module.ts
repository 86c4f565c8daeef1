import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AppsModule } from '../apps';
import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { CustomersModule } from '../customers';
import { PaymentsModule } from '../payments';
import { AdminInvoiceSearchService } from './admin-invoice-search.service';
import { Invoice, InvoiceLineItem, InvoiceTemplate } from './invoice.entity';
import { InvoiceSettlementSubscriber } from './invoice-settlement.subscriber';
import { InvoiceTemplatesService } from './invoice-templates.service';
import { AdminInvoicesController, InvoicesController } from './invoices.controller';
import { InvoicesRepository } from './invoices.repository';
import { InvoicesService } from './invoices.service';

@Module({
  imports: [
    AuditModule,
    AuthModule,
    AppsModule,
    CustomersModule,
    PaymentsModule,
    TypeOrmModule.forFeature([Invoice, InvoiceLineItem, InvoiceTemplate]),
  ],
  controllers: [InvoicesController, AdminInvoicesController],
  providers: [
    InvoicesRepository,
    InvoicesService,
    InvoiceTemplatesService,
    AdminInvoiceSearchService,
    InvoiceSettlementSubscriber,
  ],
  exports: [InvoicesService, InvoiceTemplatesService],
})
export class InvoicesModule {}
