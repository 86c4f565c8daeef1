import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { In } from 'typeorm';

import type { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import { EntitySql } from '../database/entity-sql';
import { sql } from '../database/sql';
import { TenantRepo, TenantScope } from '../database/tenant';
import type { AdminInvoiceQuery } from './dto/invoice.dto';
import { Invoice, InvoiceLineItem, InvoiceTemplate } from './invoice.entity';

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

  page(
    scope: TenantScope,
    query: PageQuery,
    filter: { status?: string; customerId?: number; subscriptionId?: number },
  ): Promise<Page<Invoice>> {
    const qb = this.repo.createQueryBuilder('i').where(this.invoices.where(scope));
    if (filter.status) qb.andWhere('i.status = :status', { status: filter.status });
    if (filter.customerId !== undefined)
      qb.andWhere('i.customer_id = :cid', { cid: filter.customerId });
    if (filter.subscriptionId !== undefined)
      qb.andWhere('i.subscription_id = :sid', { sid: filter.subscriptionId });
    const whole =
      !filter.status && filter.customerId === undefined && filter.subscriptionId === undefined;
    return pageOf(qb, 'i', query, {
      unique: ['number'],
      total: whole ? () => this.numbered(scope) : undefined,
    });
  }

  adminPage(query: AdminInvoiceQuery & { appIds?: number[] }): Promise<Page<Invoice>> {
    const qb = this.repo.createQueryBuilder('i');
    if (query.applicationId) qb.andWhere('i.app_id = :appId', { appId: query.applicationId });
    if (query.appIds) qb.andWhere('i.app_id = ANY(:appIds)', { appIds: query.appIds });
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
    const where = { appId: query.applicationId, mode: query.mode };
    const whole =
      !query.status &&
      !query.number &&
      !query.customerRefId &&
      !query.from &&
      !query.to &&
      !query.appIds;
    return pageOf(qb, 'i', query, {
      partitioned: !!(where.appId && where.mode),
      unique: where.appId && where.mode ? ['number'] : [],
      total: whole ? () => this.numbered(where) : undefined,
    });
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
