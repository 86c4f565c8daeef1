import type { Customer } from '../customers';
import { type Payment, toPaymentDto } from '../payments';
import type {
  InvoiceDto,
  InvoiceListItemDto,
  InvoiceSummaryDto,
  InvoiceTemplateDto,
} from './dto/invoice.dto';
import type { Invoice, InvoiceLineItem, InvoiceTemplate } from './invoice.entity';
import { amountDueOf } from './invoice-state';

/** Everything an invoice response shows, loaded without N+1 queries. */
export interface InvoiceView {
  invoice: Invoice;
  lines: InvoiceLineItem[];
  customer: Customer;
  payments: Payment[];
  appName: string;
  /** The app's default success URL: where the paid page links back to the merchant. */
  merchantUrl: string | null;
  payableUrl: string;
  /** The payer's language: the invoice's `customerLanguage`, else the app's `defaultLanguage`. */
  language: 'bn' | 'en';
}

/** Customer and money fields shared by the full invoice and the admin summary. */
function customerAndAmounts(i: Invoice, c: Customer) {
  return {
    customerName: c.name,
    customerEmail: c.email,
    customerPhone: c.phone,
    totalMinor: i.totalMinor,
    amountPaidMinor: i.amountPaidMinor,
    amountDueMinor: amountDueOf(i),
    currency: i.currency,
    dueDate: i.dueDate,
    issuedAt: i.issuedAt.toISOString(),
  };
}

export function toInvoiceDto(v: InvoiceView): InvoiceDto {
  const i = v.invoice;
  return {
    id: i.id,
    number: i.number,
    status: i.status,
    mode: i.mode,
    applicationId: i.appId,
    applicationName: v.appName,
    subscriptionId: i.subscriptionId,
    priceId: i.priceId,
    customerReference: v.customer.externalId,
    ...customerAndAmounts(i, v.customer),
    lineItems: v.lines.map((l) => ({
      id: l.id,
      description: l.description,
      qty: l.qty,
      unitAmountMinor: l.unitAmountMinor,
      lineTotalMinor: l.lineTotalMinor,
    })),
    payments: v.payments.map(toPaymentDto),
    payableUrl: v.payableUrl,
    customerLanguage: i.customerLanguage,
    notifyCustomer: i.notifyCustomer,
    metadata: i.metadata,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}

/** An invoice in a list: everything but its line items and payments (read one invoice for those). */
export function toInvoiceListItemDto(v: InvoiceView): InvoiceListItemDto {
  const { lineItems: _lines, payments: _payments, ...rest } = toInvoiceDto(v);
  void _lines;
  void _payments;
  return rest;
}

export interface InvoiceSummaryRow {
  invoice: Invoice;
  appName: string;
  customer: Customer;
}

export function toInvoiceSummaryDto(r: InvoiceSummaryRow): InvoiceSummaryDto {
  const i = r.invoice;
  return {
    id: i.id,
    applicationId: i.appId,
    applicationName: r.appName,
    number: i.number,
    mode: i.mode,
    status: i.status,
    customerRefId: r.customer.id,
    customerExternalId: r.customer.externalId,
    ...customerAndAmounts(i, r.customer),
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}

export function toTemplateDto(t: InvoiceTemplate | null): InvoiceTemplateDto {
  return {
    logoUrl: t?.logoUrl ?? null,
    companyName: t?.companyName ?? null,
    companyAddress: t?.companyAddress ?? null,
    contactDetails: t?.contactDetails ?? null,
    footerNote: t?.footerNote ?? null,
    accentColor: t?.accentColor ?? null,
    createdAt: t ? t.createdAt.toISOString() : null,
    updatedAt: t ? t.updatedAt.toISOString() : null,
  };
}

/** `data` of invoice.* events. */
export function invoiceEventData(
  i: Invoice,
  customerReference: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    invoice_id: i.id,
    number: i.number,
    total_minor: i.totalMinor,
    amount_paid_minor: i.amountPaidMinor,
    amount_due_minor: amountDueOf(i),
    currency: i.currency,
    customer_reference: customerReference,
    due_date: i.dueDate,
    subscription_id: i.subscriptionId,
    price_id: i.priceId,
    ...extra,
  };
}
