/** The invoices feature's public door: what other features may use. */
export { InvoicesModule } from './invoices.module';
export { InvoicesService, type PayableInvoice, type InvoiceLinks } from './invoices.service';
export { InvoiceTemplatesService } from './invoice-templates.service';
export { InvoiceIssued, InvoicePaid, InvoicePartiallyPaid, InvoiceVoided } from './invoice-events';
export type { Invoice, InvoiceTemplate } from './invoice.entity';
export type { InvoiceView } from './invoice.mapper';
export { amountDueOf, INVOICE_STATUSES, isPayable } from './invoice-state';
