import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Brackets, SelectQueryBuilder } from 'typeorm';

import type { Page } from '../common/http/envelope';
import type { CreatedRange } from '../common/http/list-filters';
import { pageOf, PageQuery } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import { type ListExport, listExport } from '../database/list-export';
import { sql } from '../database/sql';
import { TenantRepo, TenantScope } from '../database/tenant';
import { Refund, RefundStatus } from './refund.entity';

/** What `q` resolved to (RefundSearchService): refunds of any of these match. */
export interface RefundSearch {
  paymentIds: number[];
  customerIds: number[];
  invoiceIds: number[];
}

export interface RefundFilter {
  status?: RefundStatus;
  applicationId?: number;
  mode?: Mode;
  /** An app-scoped admin's apps. */
  appIds?: number[];
  awaitingApproval?: 'true' | 'false';
  /** Created within (decisions section 20: `from`/`to`). */
  range?: CreatedRange;
  search?: RefundSearch | null;
}

/** Every query of the refunds table. */
@Injectable()
export class RefundsRepository {
  private readonly refunds: TenantRepo<Refund>;

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    this.refunds = new TenantRepo(txHost, Refund, 'Refund');
  }

  insert(fields: Omit<Refund, 'id' | 'createdAt' | 'updatedAt'>): Promise<Refund> {
    return this.refunds.repo.save(this.refunds.repo.create(fields));
  }

  save(refund: Refund): Promise<Refund> {
    return this.refunds.repo.save(refund);
  }

  get(scope: TenantScope, id: number): Promise<Refund> {
    return this.refunds.get(scope, id);
  }

  byId(id: number): Promise<Refund | null> {
    if (!Number.isSafeInteger(id) || id < 1) return Promise.resolve(null);
    return this.refunds.repo.findOne({ where: { id } });
  }

  /** Row-locked (FOR UPDATE) until the transaction ends. */
  lockById(id: number): Promise<Refund | null> {
    if (!Number.isSafeInteger(id) || id < 1) return Promise.resolve(null);
    return this.refunds.repo.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  ofPayment(scope: TenantScope, paymentId: number): Promise<Refund[]> {
    return this.refunds.repo.find({
      where: this.refunds.where(scope, { paymentId }),
      order: { id: 'ASC' },
    });
  }

  /**
   * What the payment's refunds that did not fail add up to (pending ones
   * included): all of them (`active`, against the capture) and those the
   * app asked for (`requested`, against the approval threshold; automatic
   * ones left out).
   */
  async activeTotals(paymentId: number): Promise<{ active: number; requested: number }> {
    const [row] = await sql(this.txHost.tx).rows<{ active: number; requested: number }>(
      `SELECT COALESCE(sum(amount_minor), 0)::bigint AS active,
              COALESCE(sum(amount_minor) FILTER (WHERE NOT automatic), 0)::bigint AS requested
       FROM refunds WHERE payment_id = $1 AND status <> 'FAILED'`,
      [paymentId],
    );
    return { active: Number(row.active), requested: Number(row.requested) };
  }

  /** A page of refunds: one partition (app routes name both app and mode) or an operator's search. */
  page(query: PageQuery, filter: RefundFilter): Promise<Page<Refund>> {
    return pageOf(this.listQuery(filter), 'r', query);
  }

  /** Every refund the filters select, for an export (count, then batches). */
  exportOf(filter: RefundFilter): ListExport<Refund> {
    return listExport(this.txHost.tx, this.listQuery(filter), 'r');
  }

  private listQuery(filter: RefundFilter): SelectQueryBuilder<Refund> {
    const qb = this.refunds.repo.createQueryBuilder('r');
    const awaiting = "r.status = 'PENDING' AND r.approvalRequired AND r.approvedAt IS NULL";
    if (filter.awaitingApproval === 'true') qb.andWhere(awaiting);
    if (filter.awaitingApproval === 'false') qb.andWhere(`NOT (${awaiting})`);
    if (filter.status) qb.andWhere('r.status = :status', { status: filter.status });
    if (filter.applicationId) qb.andWhere('r.appId = :appId', { appId: filter.applicationId });
    if (filter.appIds) qb.andWhere('r.appId = ANY(:appIds)', { appIds: filter.appIds });
    if (filter.mode) qb.andWhere('r.mode = :mode', { mode: filter.mode });
    if (filter.range?.since) qb.andWhere('r.created_at >= :since', { since: filter.range.since });
    if (filter.range?.until) qb.andWhere('r.created_at < :until', { until: filter.range.until });
    const search = filter.search;
    if (search) {
      const arms: [string, string, number[]][] = [
        ['r.payment_id', 'qPayments', search.paymentIds],
        ['r.customer_id', 'qCustomers', search.customerIds],
        ['r.invoice_id', 'qInvoices', search.invoiceIds],
      ];
      const used = arms.filter(([, , ids]) => ids.length > 0);
      // Each arm an index lookup (refunds_by_payment, _by_customer, _by_invoice); nothing named: no rows.
      if (used.length === 0) qb.andWhere('false');
      else
        qb.andWhere(
          new Brackets((or) => {
            for (const [column, name, ids] of used)
              or.orWhere(`${column} = ANY(:${name})`, { [name]: ids });
          }),
        );
    }
    return qb;
  }

  /**
   * PENDING refunds that may go to their gateway now, oldest first: sent
   * ones whose pause (`recheck_at`) is over (the answer was lost, or the
   * gateway is still processing), and never-sent ones free to go (automatic
   * ones at once; opened or approved a minute before `now`: the request that
   * should have sent them stopped between its steps). Refunds waiting for
   * an operator's approval are never among them, nor manual ones (no
   * gateway call exists for them: an operator completes them); one that a
   * trip to the gateway holds (`claimed_until` ahead) is skipped.
   */
  async awaitingGateway(now: Date, limit: number): Promise<number[]> {
    const rows = await sql(this.txHost.tx).rows<{ id: number }>(
      `SELECT id FROM refunds
        WHERE status = 'PENDING' AND NOT manual
          AND (NOT approval_required OR approved_at IS NOT NULL)
          AND (recheck_at IS NULL OR recheck_at <= $1)
          AND (claimed_until IS NULL OR claimed_until <= $1)
          AND (submitted_at IS NOT NULL OR automatic
               OR COALESCE(approved_at, created_at) < $1::timestamptz - interval '60 seconds')
        ORDER BY COALESCE(recheck_at, submitted_at, approved_at, created_at) LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => Number(r.id));
  }

  /** How many of the app's refunds in the mode are PENDING (not final) through the gateway. */
  async countPendingAtGateway(scope: TenantScope, gateway: string): Promise<number> {
    const [row] = await sql(this.txHost.tx).rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM refunds
        WHERE app_id = $1 AND mode = $2 AND gateway = $3 AND status = 'PENDING'`,
      [scope.appId, scope.mode, gateway],
    );
    return Number(row.n);
  }

  /** The gateway's ids of a payment's other refunds (a status query tells them from this one). */
  async otherGatewayIds(paymentId: number, exceptId: number): Promise<string[]> {
    const rows = await sql(this.txHost.tx).rows<{ gateway_refund_id: string }>(
      `SELECT gateway_refund_id FROM refunds
        WHERE payment_id = $1 AND id <> $2 AND gateway_refund_id IS NOT NULL AND gateway_refund_id <> ''`,
      [paymentId, exceptId],
    );
    return rows.map((r) => r.gateway_refund_id);
  }
}
