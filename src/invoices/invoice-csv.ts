import { type CsvColumn, dhakaDateTime, moneyColumns } from '../common/http/csv';
import { amountDueOf } from './invoice-state';
import type { InvoiceExportRow } from './invoices.service';

/** The columns of an invoice export (`Accept: text/csv` on the invoice lists), in order. */
export const INVOICE_CSV_COLUMNS: CsvColumn<InvoiceExportRow>[] = [
  { header: 'number', value: (r) => r.invoice.number, doc: 'the invoice number (INV-000001)' },
  { header: 'id', value: (r) => r.invoice.id, doc: "the invoice's id" },
  { header: 'applicationId', value: (r) => r.invoice.appId, doc: 'the app' },
  { header: 'mode', value: (r) => r.invoice.mode, doc: 'TEST or LIVE' },
  { header: 'status', value: (r) => r.invoice.status, doc: 'ISSUED, PARTIALLY_PAID, PAID or VOID' },
  {
    header: 'customerReference',
    value: (r) => r.customer.externalId,
    doc: "the app's customerReference",
  },
  { header: 'customerName', value: (r) => r.customer.name, doc: "the customer's name" },
  { header: 'customerEmail', value: (r) => r.customer.email, doc: "the customer's email" },
  { header: 'customerPhone', value: (r) => r.customer.phone, doc: "the customer's phone" },
  ...moneyColumns<InvoiceExportRow>('total', (r) => r.invoice.totalMinor, 'the total'),
  ...moneyColumns<InvoiceExportRow>('amountPaid', (r) => r.invoice.amountPaidMinor, 'what is paid'),
  ...moneyColumns<InvoiceExportRow>('amountDue', (r) => amountDueOf(r.invoice), 'what is due'),
  { header: 'currency', value: (r) => r.invoice.currency, doc: 'BDT' },
  {
    header: 'dueDate',
    value: (r) => r.invoice.dueDate,
    doc: 'the due date (YYYY-MM-DD, Asia/Dhaka)',
  },
  {
    header: 'issuedAt',
    value: (r) => dhakaDateTime(r.invoice.issuedAt),
    doc: 'when it was issued, Asia/Dhaka time',
  },
  {
    header: 'createdAt',
    value: (r) => dhakaDateTime(r.invoice.createdAt),
    doc: 'when it was created, Asia/Dhaka time',
  },
  {
    header: 'voidedAt',
    value: (r) => dhakaDateTime(r.invoice.voidedAt),
    doc: 'when it was voided, Asia/Dhaka time (empty unless VOID)',
  },
  {
    header: 'subscriptionId',
    value: (r) => r.invoice.subscriptionId,
    doc: 'the subscription it bills (empty for one-off invoices)',
  },
];
