import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AppsService } from '../apps';
import { Clock } from '../common/clock/clock';
import { addDays, dhakaDate } from '../common/clock/dhaka-calendar';
import { randomToken } from '../common/crypto/crypto';
import { DomainEventBus } from '../common/domain-events';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { CSV_BATCH_SIZE } from '../common/http/csv';
import { Page } from '../common/http/envelope';
import {
  createdRange,
  SEARCH_MATCH_LIMIT,
  type SearchScope,
  type SearchTerm,
  searchTerm,
} from '../common/http/list-filters';
import { PageQuery, paginationMeta } from '../common/http/pagination';
import { assertMetadataSize } from '../common/http/validation';
import { addMinor, assertCurrency, multiplyMinor } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import { Customer, CustomersService } from '../customers';
import { ReplicaReads } from '../database/replica-reads';
import type { TenantScope } from '../database/tenant';
import { type Payment, PaymentsService } from '../payments';
import type { CreateInvoiceDto } from './dto/invoice.dto';
import { Invoice, InvoiceTemplate } from './invoice.entity';
import { InvoiceView } from './invoice.mapper';
import { InvoiceIssued, InvoiceVoided } from './invoice-events';
import { amountDue, canVoid, isPayable } from './invoice-state';
import { InvoiceTemplatesService } from './invoice-templates.service';
import { type InvoiceFilter, type InvoiceSearch, InvoicesRepository } from './invoices.repository';

export const DEFAULT_DUE_DAYS = 7;

/** The invoice lists' filters (GET /api/v1/invoices). */
export interface InvoiceListFilter {
  status?: string;
  customerReference?: string;
  subscriptionId?: number;
  /** Asia/Dhaka days, both inclusive, on the creation time. */
  from?: string;
  to?: string;
  q?: string;
}

/** An invoice in an export, with its customer. */
export interface InvoiceExportRow {
  invoice: Invoice;
  customer: Customer;
}

async function* noBatches<T>(): AsyncGenerator<T[]> {}

export interface InvoiceLinks {
  subscriptionId?: number | null;
  priceId?: number | null;
}

/** An invoice locked for paying it, with what it still needs. */
export interface PayableInvoice {
  invoice: Invoice;
  /** Whether it takes payments at all (ISSUED or PARTIALLY_PAID). */
  payable: boolean;
  dueMinor: number;
  customer: Customer;
}

/**
 * Invoices: issuing, reading, voiding, and the lookups the hosted pay page
 * and billing need. Invoices count captures themselves, by subscribing to
 * PaymentSucceeded, and publish what they counted as CaptureSettled
 * (invoice-settlement.subscriber.ts).
 */
@Injectable()
export class InvoicesService {
  constructor(
    private readonly invoices: InvoicesRepository,
    private readonly templates: InvoiceTemplatesService,
    private readonly customers: CustomersService,
    private readonly payments: PaymentsService,
    private readonly apps: AppsService,
    private readonly bus: DomainEventBus,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly reads: ReplicaReads,
  ) {}

  payableUrl(invoice: Invoice): string {
    return `${this.config.publicBaseUrl}/pay/${invoice.payToken}`;
  }

  @Transactional()
  async create(
    scope: TenantScope,
    input: CreateInvoiceDto,
    links: InvoiceLinks = {},
  ): Promise<InvoiceView> {
    const currency = assertCurrency(input.currency);
    assertMetadataSize(input.metadata);
    const lineTotals = input.lineItems.map((l) => multiplyMinor(l.unitAmountMinor, l.qty));
    const totalMinor = addMinor(...lineTotals);
    // An invoice must be payable in one go on its pay page, so its total stays
    // within the app's maximum payment amount.
    const app = await this.apps.settingsOf(scope.appId);
    if (totalMinor > app.maxAmountMinor) {
      throw new AppError(
        ErrorCode.AMOUNT_OUT_OF_RANGE,
        `The invoice total ${totalMinor} exceeds this app's maxAmountMinor (${app.maxAmountMinor})`,
      );
    }
    const now = this.clock.now();
    // Dhaka dates (decisions 5): issued at 03:38 on 29 November in Dhaka is issued on the 29th.
    const today = dhakaDate(now.getTime());
    const dueDate = input.dueDate ?? addDays(today, DEFAULT_DUE_DAYS);
    if (dueDate < today)
      throw AppError.validation('dueDate', 'dueDate must not be before the issue date');
    const customer = await this.customers.findOrCreate(scope, input.customerReference, {
      name: input.customerName,
      email: input.customerEmail,
      phone: input.customerPhone,
    });
    const invoice = await this.invoices.insert({
      ...scope,
      status: 'ISSUED',
      customerId: customer.id,
      subscriptionId: links.subscriptionId ?? null,
      priceId: links.priceId ?? null,
      totalMinor,
      amountPaidMinor: 0,
      currency,
      dueDate,
      issuedAt: now,
      payToken: randomToken(24),
      metadata: input.metadata ?? null,
      voidedAt: null,
      customerLanguage: input.customerLanguage ?? null,
      notifyCustomer: input.notifyCustomer ?? false,
    });
    const lines = await this.invoices.insertLines(
      input.lineItems.map((l, i) => ({
        invoiceId: invoice.id,
        position: i + 1,
        description: l.description,
        qty: l.qty,
        unitAmountMinor: l.unitAmountMinor,
        lineTotalMinor: lineTotals[i],
      })),
    );
    // Last: the app's number counter stays locked from here to the commit.
    invoice.number = await this.invoices.assignNumber(scope, invoice.id);
    await this.bus.publish(new InvoiceIssued(scope, invoice, customer.externalId));
    return {
      invoice,
      lines,
      customer,
      payments: [],
      appName: app.name,
      merchantUrl: app.defaultSuccessUrl,
      payableUrl: this.payableUrl(invoice),
      language: invoice.customerLanguage ?? app.defaultLanguage,
    };
  }

  async get(scope: TenantScope, id: number): Promise<InvoiceView> {
    const invoice = await this.invoices.get(scope, id);
    const [view] = await this.views(scope, [invoice]);
    return view;
  }

  /** The PAID invoices of these prices (one-time purchases whose grants are for good). */
  paidOfPrices(scope: TenantScope, priceIds: number[]): Promise<Invoice[]> {
    return priceIds.length === 0
      ? Promise.resolve([])
      : this.invoices.paidOfPrices(scope, priceIds);
  }

  async list(
    scope: TenantScope,
    query: PageQuery,
    filter: InvoiceListFilter,
  ): Promise<Page<InvoiceView>> {
    // A list: on the read replica once it has caught up (docs/operations.md, "A read replica").
    return this.reads.read(async () => {
      const resolved = await this.filterOf(scope, filter);
      if (!resolved) return new Page([], paginationMeta(query.page ?? 0, query.size ?? 20, 0));
      const page = await this.invoices.page(scope, query, resolved);
      // Lists leave line items and payments to the single read (a page of 1,000
      // invoices with their lines used to be tens of megabytes).
      return new Page(await this.views(scope, page.items, { details: false }), page.pagination);
    });
  }

  /**
   * Every invoice the list's filters select, for a CSV export: how many
   * (counting at most `limit + 1`), and the rows with their customers, in
   * batches, newest first.
   */
  async exportOf(
    scope: TenantScope,
    filter: InvoiceListFilter,
    limit: number,
  ): Promise<{ count: number; batches: AsyncIterable<InvoiceExportRow[]> }> {
    // The batches' statements run on the connection the export was built on.
    return this.reads.read(async () => {
      const resolved = await this.filterOf(scope, filter);
      if (!resolved) return { count: 0, batches: noBatches() };
      const source = this.invoices.exportOf(scope, resolved);
      return {
        count: await source.count(limit),
        batches: this.exportRows(source.batches(CSV_BATCH_SIZE)),
      };
    });
  }

  /** Invoice batches with their customers (one query per batch). */
  async *exportRows(batches: AsyncIterable<Invoice[]>): AsyncGenerator<InvoiceExportRow[]> {
    for await (const batch of batches) {
      const customers = await this.customers.byIds(batch.map((i) => i.customerId));
      yield batch.map((invoice) => ({ invoice, customer: customers.get(invoice.customerId)! }));
    }
  }

  /**
   * What the list's `q` names (decisions section 20): an invoice number,
   * customers by reference, email or phone, and invoices a payment matched
   * by id, reference or gateway transaction id paid on. Null without `q`.
   */
  async searchFor(where: SearchScope, q: string | undefined): Promise<InvoiceSearch | null> {
    const term = searchTerm(q);
    if (!term) return null;
    // Sequential on purpose: inside a transaction they share one connection.
    const customerIds = await this.customers.idsMatching(where, term);
    const ids = await this.payments.invoiceIdsMatching(where, term);
    return { number: term.upper, customerIds, ids };
  }

  /** Ids of the invoices a search term names by number (other lists' `q`). */
  idsByNumber(where: SearchScope, term: SearchTerm): Promise<number[]> {
    return this.invoices.idsByNumber(where, term.upper, SEARCH_MATCH_LIMIT);
  }

  /** The repository's filter for a list query; null when it selects nothing (an unknown customer). */
  private async filterOf(
    scope: TenantScope,
    filter: InvoiceListFilter,
  ): Promise<InvoiceFilter | null> {
    const range = createdRange(filter.from, filter.to);
    let customerId: number | undefined;
    if (filter.customerReference) {
      const customer = await this.customers.findByExternalId(scope, filter.customerReference);
      if (!customer) return null;
      customerId = customer.id;
    }
    return {
      status: filter.status,
      customerId,
      subscriptionId: filter.subscriptionId,
      range,
      search: await this.searchFor(scope, filter.q),
    };
  }

  /** Lines, customers, payments and the app name of many invoices: one query each. */
  private async views(
    scope: TenantScope,
    invoices: Invoice[],
    opts: { details: boolean } = { details: true },
  ): Promise<InvoiceView[]> {
    if (invoices.length === 0) return [];
    const ids = invoices.map((i) => i.id);
    // Sequential on purpose: inside a transaction they share one connection.
    const lines = opts.details ? await this.invoices.linesOf(ids) : [];
    const customers = await this.customers.byIds(invoices.map((i) => i.customerId));
    const payments = opts.details ? await this.payments.forInvoices(scope, ids) : [];
    const app = await this.apps.settingsOf(scope.appId);
    return invoices.map((invoice) => ({
      invoice,
      lines: lines.filter((l) => l.invoiceId === invoice.id),
      customer: customers.get(invoice.customerId) as Customer,
      payments: payments.filter((p) => p.invoiceId === invoice.id),
      appName: app.name,
      merchantUrl: app.defaultSuccessUrl,
      payableUrl: this.payableUrl(invoice),
      language: invoice.customerLanguage ?? app.defaultLanguage,
    }));
  }

  /**
   * Voids an ISSUED invoice with nothing paid; its open payments are
   * cancelled with it, and then their checkouts closed (no lock held).
   * Their gateways are asked first, with nothing locked: a capture that
   * landed just before the void is recorded (decisions section 13), and the
   * void then answers as the invoice now stands (409 once it is paid).
   */
  async void(scope: TenantScope, id: number): Promise<InvoiceView> {
    await this.payments.captureBeforeClosing(await this.payments.openOfInvoice(scope, id));
    const { view, cancelled } = await this.voidLocked(scope, id);
    await this.payments.closeCheckouts(cancelled);
    return view;
  }

  /**
   * Voids inside the caller's transaction (or its own). The caller closes
   * the returned payments' checkouts once it has committed
   * (PaymentsService.closeCheckouts): no gateway call inside a transaction.
   */
  @Transactional()
  async voidLocked(
    scope: TenantScope,
    id: number,
  ): Promise<{ view: InvoiceView; cancelled: Payment[] }> {
    // A confirmation in flight finishes first, and this void then sees what it paid.
    const invoice = await this.lockInOrder(scope, id);
    if (invoice.status === 'VOID') return { view: await this.get(scope, id), cancelled: [] };
    if (!canVoid(invoice.status, invoice.amountPaidMinor)) {
      throw AppError.invalidState(`A ${invoice.status.toLowerCase()} invoice cannot be voided`);
    }
    // Again: payments created before the invoice lock was ours are open too.
    const cancelled = await this.payments.cancelOpenForInvoice(scope, id);
    invoice.status = 'VOID';
    invoice.voidedAt = this.clock.now();
    const saved = await this.invoices.save(invoice);
    const customer = await this.customers.get(scope, saved.customerId);
    await this.bus.publish(new InvoiceVoided(scope, saved, customer.externalId));
    return { view: await this.get(scope, id), cancelled };
  }

  /**
   * The invoice row-locked in the one lock order (docs/architecture.md, "The money core"):
   * its PENDING payments first (id order), then the invoice, as a capture
   * of one of them locks them. 404 outside the scope.
   */
  async lockInOrder(scope: TenantScope, id: number): Promise<Invoice> {
    await this.payments.lockOpenForInvoice(scope, id);
    return this.invoices.getForUpdate(scope, id);
  }

  // --- For billing (paying an invoice)

  /**
   * Locks the invoice (FOR UPDATE) until the caller's transaction commits,
   * so a void (or a settlement) in flight either finishes first and is seen
   * here, or waits and then sees what this transaction did. 404 outside the scope.
   */
  async lockForPayment(scope: TenantScope, invoiceId: number): Promise<PayableInvoice> {
    const invoice = await this.invoices.getForUpdate(scope, invoiceId);
    return {
      invoice,
      payable: isPayable(invoice.status),
      dueMinor: amountDue(invoice.totalMinor, invoice.amountPaidMinor),
      customer: await this.customers.get(scope, invoice.customerId),
    };
  }

  // --- Hosted pay page

  /** The invoice of a pay link (the token is the capability), or null. */
  findByPayToken(token: string): Promise<Invoice | null> {
    if (!/^[A-Za-z0-9_-]{20,64}$/.test(token)) return Promise.resolve(null);
    return this.invoices.byPayToken(token);
  }

  /** What the hosted pay page shows: the invoice with its lines and payments, and its template. */
  async payPageOf(
    token: string,
  ): Promise<{ view: InvoiceView; template: InvoiceTemplate | null } | null> {
    const invoice = await this.findByPayToken(token);
    if (!invoice) return null;
    const scope = { appId: invoice.appId, mode: invoice.mode };
    const [view] = await this.views(scope, [invoice]);
    return { view, template: await this.templates.get(scope) };
  }
}
