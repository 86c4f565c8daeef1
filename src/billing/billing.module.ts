import { Module } from '@nestjs/common';

import { AuthModule } from '../auth';
import { InvoicesModule } from '../invoices';
import { PaymentsModule } from '../payments';
import { CreatePaymentController } from './create-payment.controller';
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
  providers: [InvoicePaymentsService],
  exports: [InvoicePaymentsService],
})
export class BillingModule {}
