import { type CsvColumn, dhakaDateTime, moneyColumns } from '../common/http/csv';
import type { RefundExportRow } from './refund-lists.service';

/** The columns of a refund export (`Accept: text/csv` on the refund lists), in order. */
export const REFUND_CSV_COLUMNS: CsvColumn<RefundExportRow>[] = [
  { header: 'id', value: (r) => r.refund.id, doc: "the refund's id" },
  { header: 'paymentId', value: (r) => r.refund.paymentId, doc: 'the payment it gives back' },
  { header: 'invoiceId', value: (r) => r.refund.invoiceId, doc: "the payment's invoice" },
  { header: 'applicationId', value: (r) => r.refund.appId, doc: 'the app' },
  { header: 'mode', value: (r) => r.refund.mode, doc: 'TEST or LIVE' },
  { header: 'status', value: (r) => r.refund.status, doc: 'PENDING, SUCCEEDED or FAILED' },
  ...moneyColumns<RefundExportRow>('amount', (r) => r.refund.amountMinor, 'the amount'),
  { header: 'currency', value: (r) => r.refund.currency, doc: 'BDT' },
  { header: 'reason', value: (r) => r.refund.reason, doc: 'why, as given' },
  {
    header: 'approvalRequired',
    value: (r) => r.refund.approvalRequired,
    doc: 'true when above the approval threshold',
  },
  {
    header: 'automatic',
    value: (r) => r.refund.automatic,
    doc: 'true when Joma opened it itself (an excess capture)',
  },
  {
    header: 'manual',
    value: (r) => r.refund.manual,
    doc: 'true when its gateway has no refund call: an operator pays it back outside Joma and completes it',
  },
  { header: 'gateway', value: (r) => r.refund.gateway, doc: 'the gateway it goes through' },
  {
    header: 'gatewayRefundId',
    value: (r) => r.refund.gatewayRefundId,
    doc: "the gateway's id of the refund",
  },
  {
    header: 'customerReference',
    value: (r) => r.customer.externalId,
    doc: "the app's customerReference",
  },
  {
    header: 'failureReason',
    value: (r) => r.refund.failureReason,
    doc: "why it failed, in the gateway's words",
  },
  {
    header: 'createdAt',
    value: (r) => dhakaDateTime(r.refund.createdAt),
    doc: 'when it was asked for, Asia/Dhaka time',
  },
  {
    header: 'updatedAt',
    value: (r) => dhakaDateTime(r.refund.updatedAt),
    doc: 'when it last changed, Asia/Dhaka time',
  },
];
