import { Module } from '@nestjs/common';

import { AuthModule } from '../auth';
import { InvoicesModule } from '../invoices';
import { InvoicePayPages, PaymentsModule } from '../payments';
import { CreatePaymentController } from './create-payment.controller';
import { BillingInvoicePayPages } from './invoice-pay-pages.provider';
import { InvoicePaymentsService } from './invoice-payments.service';
import { PayPageController } from './pay-page.controller';

/**
 * Use cases that need both invoices and payments (paying an invoice through
 * the API or the hosted pay page). It sits above both: invoices depend on
 * payments, payments on neither, and neither on billing.
 */
@Module({
  imports: [AuthModule, InvoicesModule, PaymentsModule],
  controllers: [CreatePaymentController, PayPageController],
  providers: [
    InvoicePaymentsService,
    // Found by the payments result page through ModuleRef (payments cannot import billing).
    { provide: InvoicePayPages, useClass: BillingInvoicePayPages },
  ],
  exports: [InvoicePaymentsService],
})
export class BillingModule {}
