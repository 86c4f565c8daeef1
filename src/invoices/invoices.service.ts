import { Injectable, OnModuleInit } from '@nestjs/common';
import { TransactionHost, Transactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AppsService } from '../apps/apps.service';
import { Clock } from '../common/clock/clock';
import { randomToken } from '../common/crypto/crypto';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Page } from '../common/http/envelope';
import { paginationMeta, pageOf, PageQuery } from '../common/http/pagination';
import { assertMetadataSize } from '../common/http/validation';
import { addMinor, assertCurrency, multiplyMinor } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import { Customer, CustomersService } from '../customers/customers.service';
import { TenantRepo, TenantScope } from '../database/tenant';
import { EventsService } from '../events/events.service';
import type { InvoiceLink } from '../payments/invoice-link.types';
import { Payment, PaymentsService } from '../payments/payments.service';
import type { AdminInvoiceQuery, CreateInvoiceDto, InvoiceTemplateInput } from './dto/invoice.dto';
import { Invoice, InvoiceLineItem, InvoiceTemplate } from './invoice.entity';
import { InvoiceSummaryRow, InvoiceView, invoiceEventData } from './invoice.mapper';
import { afterPayment, amountDue, canVoid, formatInvoiceNumber, isPayable } from './invoice-state';

export const DEFAULT_DUE_DAYS = 7;

export interface InvoiceLinks {
  subscriptionId?: number | null;
  priceId?: number | null;
}

@Injectable()
export class InvoicesService implements InvoiceLink, OnModuleInit {
  private readonly invoices: TenantRepo<Invoice>;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly customers: CustomersService,
    private readonly payments: PaymentsService,
    private readonly apps: AppsService,
    private readonly events: EventsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.invoices = new TenantRepo(txHost, Invoice, 'Invoice');
  }

  onModuleInit(): void {
    this.payments.registerInvoiceLink(this);
  }

  private get lines() {
    return this.txHost.tx.getRepository(InvoiceLineItem);
  }

  payableUrl(invoice: Invoice): string {
    return `${this.config.publicBaseUrl}/pay/${invoice.payToken}`;
  }

  /** Next number of the app+mode sequence; the counter row stays locked until commit, so numbers are gapless. */
  private async nextNumber(scope: TenantScope): Promise<string> {
    const [row] = await this.txHost.tx.query(
      `INSERT INTO invoice_counters (app_id, mode, last_number) VALUES ($1, $2, 1)
       ON CONFLICT (app_id, mode) DO UPDATE SET last_number = invoice_counters.last_number + 1
       RETURNING last_number`,
      [scope.appId, scope.mode],
    );
    return formatInvoiceNumber(Number(row.last_number));
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
    const app = await this.apps.get(scope.appId);
    if (totalMinor > app.maxAmountMinor) {
      throw new AppError(
        ErrorCode.AMOUNT_OUT_OF_RANGE,
        `The invoice total ${totalMinor} exceeds this app's maxAmountMinor (${app.maxAmountMinor})`,
      );
    }
    const now = this.clock.now();
    const today = now.toISOString().slice(0, 10);
    const dueDate =
      input.dueDate ??
      new Date(now.getTime() + DEFAULT_DUE_DAYS * 86_400_000).toISOString().slice(0, 10);
    if (dueDate < today)
      throw AppError.validation('dueDate', 'dueDate must not be before the issue date');
    const customer = await this.customers.findOrCreate(scope, input.customerReference, {
      name: input.customerName,
      email: input.customerEmail,
      phone: input.customerPhone,
    });
    const number = await this.nextNumber(scope);
    const repo = this.invoices.repo;
    const invoice = await repo.save(
      repo.create({
        ...scope,
        number,
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
      }),
    );
    const lines = await this.lines.save(
      input.lineItems.map((l, i) =>
        this.lines.create({
          invoiceId: invoice.id,
          position: i + 1,
          description: l.description,
          qty: l.qty,
          unitAmountMinor: l.unitAmountMinor,
          lineTotalMinor: lineTotals[i],
        }),
      ),
    );
    await this.events.record(
      scope,
      'invoice.issued',
      invoiceEventData(invoice, customer.externalId),
    );
    return {
      invoice,
      lines,
      customer,
      payments: [],
      appName: app.name,
      merchantUrl: app.defaultSuccessUrl,
      payableUrl: this.payableUrl(invoice),
    };
  }

  async get(scope: TenantScope, id: number): Promise<InvoiceView> {
    const invoice = await this.invoices.get(scope, id);
    const [view] = await this.views(scope, [invoice]);
    return view;
  }

  async list(
    scope: TenantScope,
    query: PageQuery,
    filter: { status?: string; customerReference?: string },
  ): Promise<Page<InvoiceView>> {
    const qb = this.invoices.repo.createQueryBuilder('i').where(this.invoices.where(scope));
    if (filter.status) qb.andWhere('i.status = :status', { status: filter.status });
    if (filter.customerReference) {
      const customer = await this.customers.findByExternalId(scope, filter.customerReference);
      if (!customer) return new Page([], paginationMeta(query.page ?? 0, query.size ?? 20, 0));
      qb.andWhere('i.customer_id = :cid', { cid: customer.id });
    }
    const page = await pageOf(qb, 'i', query);
    // Lists leave line items and payments to the single read (a page of 1,000
    // invoices with their lines used to be tens of megabytes).
    return new Page(await this.views(scope, page.items, { details: false }), page.pagination);
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
    const lines = opts.details
      ? await this.lines
          .createQueryBuilder('l')
          .where('l.invoice_id IN (:...ids)', { ids })
          .orderBy('l.position', 'ASC')
          .getMany()
      : [];
    const customers = await this.customers.byIds(invoices.map((i) => i.customerId));
    const payments = opts.details ? await this.payments.forInvoices(scope, ids) : [];
    const app = await this.apps.get(scope.appId);
    return invoices.map((invoice) => ({
      invoice,
      lines: lines.filter((l) => l.invoiceId === invoice.id),
      customer: customers.get(invoice.customerId) as Customer,
      payments: payments.filter((p) => p.invoiceId === invoice.id),
      appName: app.name,
      merchantUrl: app.defaultSuccessUrl,
      payableUrl: this.payableUrl(invoice),
    }));
  }

  /**
   * Voids an ISSUED invoice with nothing paid; its open payments are
   * cancelled with it, and then their checkouts closed (no lock held).
   */
  async void(scope: TenantScope, id: number): Promise<InvoiceView> {
    const { view, cancelled } = await this.voidLocked(scope, id);
    await this.payments.closeCheckouts(cancelled);
    return view;
  }

  @Transactional()
  private async voidLocked(
    scope: TenantScope,
    id: number,
  ): Promise<{ view: InvoiceView; cancelled: Payment[] }> {
    // Payments before the invoice (see lockOpenForInvoice): a confirmation in
    // flight finishes first, and this void then sees what it paid.
    await this.payments.lockOpenForInvoice(scope, id);
    const invoice = await this.invoices.getForUpdate(scope, id);
    if (invoice.status === 'VOID') return { view: await this.get(scope, id), cancelled: [] };
    if (!canVoid(invoice.status, invoice.amountPaidMinor)) {
      throw AppError.invalidState(`A ${invoice.status.toLowerCase()} invoice cannot be voided`);
    }
    // Again: payments created before the invoice lock was ours are open too.
    const cancelled = await this.payments.cancelOpenForInvoice(scope, id);
    invoice.status = 'VOID';
    invoice.voidedAt = this.clock.now();
    const saved = await this.invoices.repo.save(invoice);
    const customer = await this.customers.get(scope, saved.customerId);
    await this.events.record(scope, 'invoice.voided', invoiceEventData(saved, customer.externalId));
    return { view: await this.get(scope, id), cancelled };
  }

  // --- InvoiceLink (called by payments inside the payment's transaction)

  /**
   * Locks the invoice until the payment's transaction commits, so a void
   * (or a settlement) in flight either finishes first and is seen here, or
   * waits and then sees this payment.
   */
  async assertPayable(
    scope: TenantScope,
    invoiceId: number,
  ): Promise<{ dueMinor: number; customerId: number }> {
    const invoice = await this.invoices.getForUpdate(scope, invoiceId);
    if (!isPayable(invoice.status))
      throw AppError.invalidState(`A ${invoice.status.toLowerCase()} invoice cannot be paid`);
    return {
      dueMinor: amountDue(invoice.totalMinor, invoice.amountPaidMinor),
      customerId: invoice.customerId,
    };
  }

  async excessOf(scope: TenantScope, payment: Payment): Promise<number> {
    if (payment.invoiceId === null) return 0;
    const invoice = await this.invoices.getForUpdate(scope, payment.invoiceId);
    return afterPayment(
      invoice.status,
      invoice.totalMinor,
      invoice.amountPaidMinor,
      payment.amountMinor,
    ).excessMinor;
  }

  async onPaymentSucceeded(scope: TenantScope, payment: Payment): Promise<void> {
    if (payment.invoiceId === null) return;
    const invoice = await this.invoices.getForUpdate(scope, payment.invoiceId);
    const next = afterPayment(
      invoice.status,
      invoice.totalMinor,
      invoice.amountPaidMinor,
      payment.amountMinor,
    );
    if (next.excessMinor !== payment.excessMinor) {
      throw new Error(
        `Payment ${payment.id}: excess ${payment.excessMinor} != ${next.excessMinor}`,
      );
    }
    if (next.countedMinor === 0) return;
    invoice.status = next.status;
    invoice.amountPaidMinor = next.paidMinor;
    const saved = await this.invoices.repo.save(invoice);
    if (next.event) {
      const customer = await this.customers.get(scope, saved.customerId);
      await this.events.record(
        scope,
        next.event,
        invoiceEventData(saved, customer.externalId, { payment_id: payment.id }),
      );
    }
  }

  // --- Hosted pay page

  async byPayToken(
    token: string,
  ): Promise<{ view: InvoiceView; template: InvoiceTemplate | null; canPay: boolean } | null> {
    if (!/^[A-Za-z0-9_-]{20,64}$/.test(token)) return null;
    const invoice = await this.invoices.repo.findOne({ where: { payToken: token } });
    if (!invoice) return null;
    const scope = { appId: invoice.appId, mode: invoice.mode };
    const [view] = await this.views(scope, [invoice]);
    return {
      view,
      template: await this.getTemplate(scope),
      canPay: this.payments.canCollect(invoice.mode),
    };
  }

  /**
   * The Pay button: a payment for the amount due, reusing an open one for the
   * same amount (a double click opens one checkout, not two). First, in a
   * transaction of its own (so it commits whatever the outcome of the click),
   * the invoice's open payments are brought up to date with their gateway: a
   * checkout finished there but never reported back must not be reused, and
   * a capture found that way must be recorded even if the click then fails.
   */
  async payFromPage(token: string): Promise<Payment> {
    const found = await this.invoices.repo.findOne({ where: { payToken: token } });
    if (!found) throw AppError.notFound('Invoice');
    const scope = { appId: found.appId, mode: found.mode };
    await this.payments.refreshCheckoutsForInvoice(scope, found.id);
    return this.openCheckout(scope, found.id);
  }

  @Transactional()
  private async openCheckout(scope: TenantScope, invoiceId: number): Promise<Payment> {
    const invoice = await this.invoices.getForUpdate(scope, invoiceId);
    if (!isPayable(invoice.status))
      throw AppError.invalidState(`This invoice is ${invoice.status.toLowerCase()}`);
    const due = amountDue(invoice.totalMinor, invoice.amountPaidMinor);
    const open = await this.payments.openPaymentFor(scope, invoice.id, due);
    if (open) return open;
    const customer = await this.customers.get(scope, invoice.customerId);
    const back = this.payableUrl(invoice);
    return this.payments.create(
      scope,
      {
        amountMinor: due,
        customerReference: customer.externalId,
        invoiceId: invoice.id,
        description: `Invoice ${invoice.number}`,
        successUrl: back,
        failUrl: back,
        cancelUrl: back,
      },
      { hosted: true },
    );
  }

  // --- Template

  /** The template of one app and mode (the pay page of a LIVE invoice uses the LIVE one). */
  getTemplate(scope: TenantScope): Promise<InvoiceTemplate | null> {
    return this.txHost.tx
      .getRepository(InvoiceTemplate)
      .findOne({ where: { appId: scope.appId, mode: scope.mode } });
  }

  @Transactional()
  async putTemplate(scope: TenantScope, input: InvoiceTemplateInput): Promise<InvoiceTemplate> {
    const repo = this.txHost.tx.getRepository(InvoiceTemplate);
    const fields = {
      logoUrl: input.logoUrl ?? null,
      companyName: input.companyName ?? null,
      companyAddress: input.companyAddress ?? null,
      contactDetails: input.contactDetails ?? null,
      footerNote: input.footerNote ?? null,
      accentColor: input.accentColor ?? null,
    };
    const key = { appId: scope.appId, mode: scope.mode };
    await repo.upsert({ ...key, ...fields }, ['appId', 'mode']);
    return (await repo.findOne({ where: key }))!;
  }

  // --- Admin search

  async adminSearch(query: AdminInvoiceQuery): Promise<Page<InvoiceSummaryRow>> {
    const qb = this.invoices.repo.createQueryBuilder('i');
    if (query.applicationId) qb.andWhere('i.app_id = :appId', { appId: query.applicationId });
    if (query.mode) qb.andWhere('i.mode = :mode', { mode: query.mode });
    if (query.status) qb.andWhere('i.status = :status', { status: query.status });
    if (query.number) qb.andWhere('i.number = :number', { number: query.number });
    if (query.customerRefId) qb.andWhere('i.customer_id = :cid', { cid: query.customerRefId });
    if (query.from) qb.andWhere('i.issued_at >= :from', { from: new Date(query.from) });
    if (query.to) {
      const to = /^\d{4}-\d{2}-\d{2}$/.test(query.to)
        ? new Date(new Date(query.to).getTime() + 86_400_000)
        : new Date(query.to);
      qb.andWhere('i.issued_at < :to', { to });
    }
    const page = await pageOf(qb, 'i', query);
    const customers = await this.customers.byIds(page.items.map((i) => i.customerId));
    const appNames = await this.apps.namesOf(page.items.map((i) => i.appId));
    return new Page(
      page.items.map((invoice) => ({
        invoice,
        customer: customers.get(invoice.customerId)!,
        appName: appNames.get(invoice.appId) ?? '',
      })),
      page.pagination,
    );
  }
}
