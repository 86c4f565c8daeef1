import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Brackets, In, SelectQueryBuilder } from 'typeorm';

import type { Page } from '../common/http/envelope';
import type { CreatedRange, SearchScope } from '../common/http/list-filters';
import { pageOf, PageQuery } from '../common/http/pagination';
import { EntitySql } from '../database/entity-sql';
import { type ListExport, listExport } from '../database/list-export';
import { sql } from '../database/sql';
import { TenantRepo, TenantScope } from '../database/tenant';
import { Invoice, InvoiceLineItem, InvoiceTemplate } from './invoice.entity';

/** What `q` resolved to (InvoicesService.searchFor): any of these matches. */
export interface InvoiceSearch {
  /** An invoice number (unique per app and mode). */
  number: string;
  /** Invoices of these customers (their reference, email or phone matched). */
  customerIds: number[];
  /** These invoices (a payment on them matched by id, reference or transaction id). */
  ids: number[];
}

export interface InvoiceFilter {
  status?: string;
  customerId?: number;
  subscriptionId?: number;
  /** Created within (decisions section 20: `from`/`to`). */
  range?: CreatedRange;
  search?: InvoiceSearch | null;
}

export interface AdminInvoiceFilter extends Omit<InvoiceFilter, 'customerId' | 'subscriptionId'> {
  applicationId?: number;
  mode?: 'TEST' | 'LIVE';
  /** An app-scoped admin's apps. */
  appIds?: number[];
  number?: string;
  customerRefId?: number;
}

/** The list filters on an invoices query (alias `i`). */
function filtered(
  qb: SelectQueryBuilder<Invoice>,
  filter: InvoiceFilter,
): SelectQueryBuilder<Invoice> {
  if (filter.status) qb.andWhere('i.status = :status', { status: filter.status });
  if (filter.customerId !== undefined)
    qb.andWhere('i.customer_id = :cid', { cid: filter.customerId });
  if (filter.subscriptionId !== undefined)
    qb.andWhere('i.subscription_id = :sid', { sid: filter.subscriptionId });
  if (filter.range?.since) qb.andWhere('i.created_at >= :since', { since: filter.range.since });
  if (filter.range?.until) qb.andWhere('i.created_at < :until', { until: filter.range.until });
  const search = filter.search;
  if (search)
    // Each arm an index lookup: (app_id, mode, number) or (number), customer_id, the primary key.
    qb.andWhere(
      new Brackets((or) => {
        or.where('i.number = :qNumber', { qNumber: search.number });
        if (search.customerIds.length)
          or.orWhere('i.customer_id = ANY(:qCustomers)', { qCustomers: search.customerIds });
        if (search.ids.length) or.orWhere('i.id = ANY(:qIds)', { qIds: search.ids });
      }),
    );
  return qb;
}

/** Every query of the invoices, invoice_line_items, invoice_templates and invoice_counters tables. */
@Injectable()
export class InvoicesRepository {
  private readonly invoices: TenantRepo<Invoice>;
  private lineSql: EntitySql<InvoiceLineItem> | undefined;

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    this.invoices = new TenantRepo(txHost, Invoice, 'Invoice');
  }

  private get repo() {
    return this.invoices.repo;
  }

  private get lines() {
    return this.txHost.tx.getRepository(InvoiceLineItem);
  }

  private get templates() {
    return this.txHost.tx.getRepository(InvoiceTemplate);
  }

  /**
   * Gives the invoice the next number of its app and mode (`INV-000001`,
   * growing past six digits), in one statement. The counter row stays locked
   * until commit, so numbers are gapless; call it as late in the creating
   * transaction as possible, so that lock is held briefly.
   */
  async assignNumber(scope: TenantScope, invoiceId: number): Promise<string> {
    const [row] = await sql(this.txHost.tx).prepared<{ number: string }>(
      'invoices_assign_number',
      `WITH next AS (
         INSERT INTO invoice_counters (app_id, mode, last_number) VALUES ($1, $2, 1)
         ON CONFLICT (app_id, mode) DO UPDATE SET last_number = invoice_counters.last_number + 1
         RETURNING last_number::text AS n)
       UPDATE invoices SET number = 'INV-' || lpad(next.n, greatest(6, length(next.n)), '0')
         FROM next WHERE invoices.id = $3
       RETURNING invoices.number`,
      [scope.appId, scope.mode, invoiceId],
    );
    return row.number;
  }

  /**
   * How many invoices the partition (or every app, or mode) holds: numbers
   * are gapless and every invoice takes one in its inserting transaction,
   * so the counters' last numbers are the exact count.
   */
  async numbered(where: { appId?: number; mode?: string }): Promise<number> {
    const [row] = await sql(this.txHost.tx).rows<{ n: string }>(
      `SELECT coalesce(sum(last_number), 0)::text AS n FROM invoice_counters
        WHERE ($1::bigint IS NULL OR app_id = $1) AND ($2::mode IS NULL OR mode = $2::mode)`,
      [where.appId ?? null, where.mode ?? null],
    );
    return Number(row.n);
  }

  /** A new invoice, without its number yet (assignNumber). */
  insert(fields: Omit<Invoice, 'id' | 'number' | 'createdAt' | 'updatedAt'>): Promise<Invoice> {
    return this.invoices.sql.insert(this.txHost.tx, fields);
  }

  /** An invoice's lines, in one statement. */
  insertLines(lines: Omit<InvoiceLineItem, 'id'>[]): Promise<InvoiceLineItem[]> {
    this.lineSql ??= EntitySql.of(this.txHost.tx.connection, InvoiceLineItem);
    return this.lineSql.insertMany(this.txHost.tx, lines);
  }

  save(invoice: Invoice): Promise<Invoice> {
    return this.repo.save(invoice);
  }

  get(scope: TenantScope, id: number): Promise<Invoice> {
    return this.invoices.get(scope, id);
  }

  /** In scope, row-locked (FOR UPDATE) until the transaction ends; 404 otherwise. */
  getForUpdate(scope: TenantScope, id: number): Promise<Invoice> {
    return this.invoices.getForUpdate(scope, id);
  }

  /** The PAID invoices of these prices (one-time purchases), oldest first. */
  paidOfPrices(scope: TenantScope, priceIds: number[]): Promise<Invoice[]> {
    return this.repo.find({
      where: this.invoices.where(scope, { priceId: In(priceIds), status: 'PAID' }),
      order: { id: 'ASC' },
    });
  }

  byPayToken(token: string): Promise<Invoice | null> {
    return this.repo.findOne({ where: { payToken: token } });
  }

  page(scope: TenantScope, query: PageQuery, filter: InvoiceFilter): Promise<Page<Invoice>> {
    const qb = filtered(
      this.repo.createQueryBuilder('i').where(this.invoices.where(scope)),
      filter,
    );
    const whole =
      !filter.status &&
      filter.customerId === undefined &&
      filter.subscriptionId === undefined &&
      !filter.range?.since &&
      !filter.range?.until &&
      !filter.search;
    return pageOf(qb, 'i', query, {
      unique: ['number'],
      total: whole ? () => this.numbered(scope) : undefined,
    });
  }

  /** Every invoice of the partition the filters select, for an export (count, then batches). */
  exportOf(scope: TenantScope, filter: InvoiceFilter): ListExport<Invoice> {
    const qb = filtered(
      this.repo.createQueryBuilder('i').where(this.invoices.where(scope)),
      filter,
    );
    return listExport(this.txHost.tx, qb, 'i');
  }

  adminPage(query: PageQuery, filter: AdminInvoiceFilter): Promise<Page<Invoice>> {
    const where = { appId: filter.applicationId, mode: filter.mode };
    const whole =
      !filter.status &&
      !filter.number &&
      !filter.customerRefId &&
      !filter.range?.since &&
      !filter.range?.until &&
      !filter.search &&
      !filter.appIds;
    return pageOf(this.adminQuery(filter), 'i', query, {
      partitioned: !!(where.appId && where.mode),
      unique: where.appId && where.mode ? ['number'] : [],
      total: whole ? () => this.numbered(where) : undefined,
    });
  }

  /** Every invoice an operator's search selects, for an export. */
  adminExportOf(filter: AdminInvoiceFilter): ListExport<Invoice> {
    return listExport(this.txHost.tx, this.adminQuery(filter), 'i');
  }

  private adminQuery(filter: AdminInvoiceFilter) {
    const qb = this.repo.createQueryBuilder('i');
    if (filter.applicationId) qb.andWhere('i.app_id = :appId', { appId: filter.applicationId });
    if (filter.appIds) qb.andWhere('i.app_id = ANY(:appIds)', { appIds: filter.appIds });
    if (filter.mode) qb.andWhere('i.mode = :mode', { mode: filter.mode });
    if (filter.number) qb.andWhere('i.number = :number', { number: filter.number });
    return filtered(qb, { ...filter, customerId: filter.customerRefId });
  }

  /** Ids of the invoices with this number in the scope (one per app and mode), at most `limit`. */
  async idsByNumber(where: SearchScope, number: string, limit: number): Promise<number[]> {
    const rows = await sql(this.txHost.tx).rows<{ id: string }>(
      `SELECT id FROM invoices
        WHERE number = $1
          AND ($2::bigint IS NULL OR app_id = $2)
          AND ($3::bigint[] IS NULL OR app_id = ANY($3))
          AND ($4::mode IS NULL OR mode = $4::mode)
        LIMIT $5`,
      [number, where.appId ?? null, where.appIds ?? null, where.mode ?? null, limit],
    );
    return rows.map((r) => Number(r.id));
  }

  /** Line items of several invoices, in position order. */
  linesOf(invoiceIds: number[]): Promise<InvoiceLineItem[]> {
    if (invoiceIds.length === 0) return Promise.resolve([]);
    return this.lines.find({
      where: { invoiceId: In(invoiceIds) },
      order: { invoiceId: 'ASC', position: 'ASC' },
    });
  }

  template(scope: TenantScope): Promise<InvoiceTemplate | null> {
    return this.templates.findOne({ where: { appId: scope.appId, mode: scope.mode } });
  }

  async upsertTemplate(
    scope: TenantScope,
    fields: Omit<InvoiceTemplate, 'appId' | 'mode' | 'createdAt' | 'updatedAt'>,
  ): Promise<InvoiceTemplate> {
    const key = { appId: scope.appId, mode: scope.mode };
    await this.templates.upsert({ ...key, ...fields }, ['appId', 'mode']);
    return (await this.templates.findOne({ where: key }))!;
  }
}
