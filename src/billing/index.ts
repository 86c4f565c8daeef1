/** The billing feature's public door. */
export { BillingModule } from './billing.module';
export { InvoicePaymentsService } from './invoice-payments.service';
