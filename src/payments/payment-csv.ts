import { type CsvColumn, dhakaDateTime, moneyColumns } from '../common/http/csv';
import type { PaymentExportRow } from './payments.service';

/** The columns of a payment export (`Accept: text/csv` on the payment lists), in order. */
export const PAYMENT_CSV_COLUMNS: CsvColumn<PaymentExportRow>[] = [
  { header: 'id', value: (r) => r.payment.id, doc: "the payment's id" },
  { header: 'reference', value: (r) => r.payment.reference, doc: 'its reference (pay_...)' },
  { header: 'applicationId', value: (r) => r.payment.appId, doc: 'the app' },
  { header: 'mode', value: (r) => r.payment.mode, doc: 'TEST or LIVE' },
  {
    header: 'status',
    value: (r) => r.payment.status,
    doc: 'PENDING, SUCCEEDED, FAILED, CANCELLED or EXPIRED',
  },
  ...moneyColumns<PaymentExportRow>('amount', (r) => r.payment.amountMinor, 'the amount'),
  ...moneyColumns<PaymentExportRow>(
    'amountRefunded',
    (r) => r.payment.amountRefundedMinor,
    'what succeeded refunds gave back',
  ),
  ...moneyColumns<PaymentExportRow>(
    'excess',
    (r) => r.payment.excessMinor,
    'what the capture brought beyond its invoice',
  ),
  { header: 'currency', value: (r) => r.payment.currency, doc: 'BDT' },
  {
    header: 'gateway',
    value: (r) => r.payment.gateway,
    doc: 'sandbox, sslcommerz, bkash, nagad, ...',
  },
  {
    header: 'gatewayTxnId',
    value: (r) => r.payment.gatewayTxnId,
    doc: "the gateway's transaction id",
  },
  { header: 'paymentMethod', value: (r) => r.payment.paymentMethod, doc: 'the method' },
  {
    header: 'paymentMethodAccount',
    value: (r) => r.payment.paymentMethodAccount,
    doc: 'the wallet or card number, masked',
  },
  { header: 'riskLevel', value: (r) => r.payment.riskLevel, doc: 'NORMAL or HIGH' },
  { header: 'invoiceId', value: (r) => r.payment.invoiceId, doc: 'the invoice it pays' },
  {
    header: 'customerReference',
    value: (r) => r.customer.externalId,
    doc: "the app's customerReference",
  },
  { header: 'customerName', value: (r) => r.customer.name, doc: "the customer's name" },
  { header: 'customerEmail', value: (r) => r.customer.email, doc: "the customer's email" },
  { header: 'customerPhone', value: (r) => r.customer.phone, doc: "the customer's phone" },
  { header: 'description', value: (r) => r.payment.description, doc: 'its description' },
  {
    header: 'failureReason',
    value: (r) => r.payment.failureReason,
    doc: "why it failed, in the gateway's words",
  },
  {
    header: 'createdAt',
    value: (r) => dhakaDateTime(r.payment.createdAt),
    doc: 'when it was created, Asia/Dhaka time',
  },
  {
    header: 'succeededAt',
    value: (r) => dhakaDateTime(r.payment.succeededAt),
    doc: 'when the capture was recorded, Asia/Dhaka time (empty unless it succeeded)',
  },
];
