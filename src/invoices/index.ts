/** The invoices feature's public door: what other features may use. */
export { InvoiceListItemDto } from './dto/invoice.dto';
export type { Invoice, InvoiceTemplate } from './invoice.entity';
export { type InvoiceView, toInvoiceListItemDto } from './invoice.mapper';
export { InvoiceIssued, InvoicePaid, InvoicePartiallyPaid, InvoiceVoided } from './invoice-events';
export { amountDueOf, INVOICE_STATUSES, isPayable } from './invoice-state';
export { InvoiceTemplatesService } from './invoice-templates.service';
export { InvoicesModule } from './invoices.module';
export { type InvoiceLinks, InvoicesService, type PayableInvoice } from './invoices.service';
