import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Brackets, In, MoreThan, SelectQueryBuilder } from 'typeorm';

import type { Page } from '../common/http/envelope';
import type { CreatedRange, SearchScope } from '../common/http/list-filters';
import { pageOf, PageQuery } from '../common/http/pagination';
import { exactMinor, safeMinor } from '../common/money/exact-sum';
import { countedRows } from '../database/list-counts';
import { type ListExport, listExport } from '../database/list-export';
import { sql } from '../database/sql';
import { TenantRepo, TenantScope } from '../database/tenant';
import type { CheckoutSession } from '../gateways';
import { Payment } from './payment.entity';

/** What `q` resolved to (PaymentsService.searchFor): any of these matches. */
export interface PaymentSearch {
  /** The term as a payment id, when it reads as one. */
  id: number | null;
  /** The term as a payment reference (`pay_...`). */
  reference: string;
  /** The term as a gateway transaction id: as given, and in upper case. */
  txnIds: string[];
  /** Payments of these customers (their reference, email or phone matched). */
  customerIds: number[];
}

export interface PaymentFilter {
  status?: string;
  customerId?: number;
  /** Created within (decisions section 20: `from`/`to`). */
  range?: CreatedRange;
  search?: PaymentSearch | null;
}

/** The list filters on a payments query (alias `p`). */
function filtered(
  qb: SelectQueryBuilder<Payment>,
  filter: PaymentFilter,
): SelectQueryBuilder<Payment> {
  if (filter.status) qb.andWhere('p.status = :status', { status: filter.status });
  if (filter.customerId !== undefined)
    qb.andWhere('p.customer_id = :cid', { cid: filter.customerId });
  if (filter.range?.since) qb.andWhere('p.created_at >= :since', { since: filter.range.since });
  if (filter.range?.until) qb.andWhere('p.created_at < :until', { until: filter.range.until });
  const search = filter.search;
  if (search)
    // Each arm an index lookup: the primary key, reference, gateway_txn_id, customer_id.
    qb.andWhere(
      new Brackets((or) => {
        or.where('p.reference = :qReference', { qReference: search.reference }).orWhere(
          'p.gateway_txn_id = ANY(:qTxnIds)',
          { qTxnIds: search.txnIds },
        );
        if (search.id !== null) or.orWhere('p.id = :qId', { qId: search.id });
        if (search.customerIds.length)
          or.orWhere('p.customer_id = ANY(:qCustomers)', { qCustomers: search.customerIds });
      }),
    );
  return qb;
}

export interface AdminPaymentFilter {
  applicationId?: number;
  mode?: 'TEST' | 'LIVE';
  status?: string;
  excess?: 'true' | 'false';
  risk?: 'NORMAL' | 'HIGH';
  gateway?: string;
  /** An app-scoped admin's apps (section 15). */
  appIds?: number[];
  range?: CreatedRange;
  search?: PaymentSearch | null;
}

/** Every query of the payments table; methods are named for what they do. */
@Injectable()
export class PaymentsRepository {
  private readonly payments: TenantRepo<Payment>;

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    this.payments = new TenantRepo(txHost, Payment, 'Payment');
  }

  private get repo() {
    return this.payments.repo;
  }

  /** Hot path (every new payment): one INSERT ... RETURNING, no query building. */
  insert(fields: Omit<Payment, 'id'>): Promise<Payment> {
    return this.payments.sql.insert(this.txHost.tx, fields);
  }

  save(payment: Payment): Promise<Payment> {
    return this.repo.save(payment);
  }

  get(scope: TenantScope, id: number): Promise<Payment> {
    return this.payments.get(scope, id);
  }

  /** In scope, row-locked (FOR UPDATE) until the transaction ends; 404 otherwise. */
  getForUpdate(scope: TenantScope, id: number): Promise<Payment> {
    return this.payments.getForUpdate(scope, id);
  }

  byId(id: number): Promise<Payment | null> {
    return this.repo.findOne({ where: { id } });
  }

  /** Captured payments by their references (settlement reports name payments by reference). */
  async ownersByReferences(
    references: string[],
  ): Promise<Pick<Payment, 'reference' | 'appId' | 'mode' | 'currency'>[]> {
    if (references.length === 0) return [];
    return await sql(this.txHost.tx).rows<
      Pick<Payment, 'reference' | 'appId' | 'mode' | 'currency'>
    >(
      `SELECT reference, app_id AS "appId", mode, currency FROM payments
        WHERE reference = ANY($1::text[])`,
      [references],
    );
  }

  /**
   * A settled capture's excess (decisions section 13), on its row and on the
   * entity this transaction holds for it (the one the capture was published
   * with), so what the caller returns is what commits.
   */
  async recordExcess(payment: Payment, excessMinor: number): Promise<Payment> {
    await this.repo.update({ id: payment.id }, { excessMinor });
    payment.excessMinor = excessMinor;
    return payment;
  }

  /** Adds a succeeded refund to the payment's refunded total. */
  async addRefunded(id: number, amountMinor: number): Promise<void> {
    await this.repo.increment({ id }, 'amountRefundedMinor', amountMinor);
  }

  lockById(id: number): Promise<Payment | null> {
    return this.repo.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** The payment a gateway callback names, by its checkout session or its reference (no lock). */
  bySubject(
    gateway: string,
    subject: { sessionId?: string; reference?: string },
  ): Promise<Payment | null> {
    if (subject.sessionId)
      return this.repo.findOne({ where: { gateway, gatewaySessionId: subject.sessionId } });
    if (subject.reference)
      return this.repo.findOne({ where: { gateway, reference: subject.reference } });
    return Promise.resolve(null);
  }

  byReference(reference: string): Promise<Payment | null> {
    return this.repo.findOne({ where: { reference } });
  }

  page(scope: TenantScope, query: PageQuery, filter: PaymentFilter): Promise<Page<Payment>> {
    const qb = filtered(
      this.repo.createQueryBuilder('p').where(this.payments.where(scope)),
      filter,
    );
    const whole =
      !filter.status &&
      filter.customerId === undefined &&
      !filter.range?.since &&
      !filter.range?.until &&
      !filter.search;
    return pageOf(qb, 'p', query, {
      total: whole ? () => countedRows(this.txHost.tx, 'payments', scope) : undefined,
    });
  }

  /** Every payment of the partition the filters select, for an export (count, then batches). */
  exportOf(scope: TenantScope, filter: PaymentFilter): ListExport<Payment> {
    const qb = filtered(
      this.repo.createQueryBuilder('p').where(this.payments.where(scope)),
      filter,
    );
    return listExport(this.txHost.tx, qb, 'p');
  }

  /**
   * Payments a search term names by id, reference or gateway transaction
   * id, in the scope (at most `limit`): their ids and their invoices'.
   */
  async matching(
    where: SearchScope,
    search: Pick<PaymentSearch, 'id' | 'reference' | 'txnIds'>,
    limit: number,
  ): Promise<{ id: number; invoiceId: number | null }[]> {
    const rows = await sql(this.txHost.tx).rows<{ id: string; invoice_id: string | null }>(
      `SELECT id, invoice_id FROM payments
        WHERE (id = $1 OR reference = $2 OR gateway_txn_id = ANY($3::text[]))
          AND ($4::bigint IS NULL OR app_id = $4)
          AND ($5::bigint[] IS NULL OR app_id = ANY($5))
          AND ($6::mode IS NULL OR mode = $6::mode)
        LIMIT $7`,
      [
        search.id,
        search.reference,
        search.txnIds,
        where.appId ?? null,
        where.appIds ?? null,
        where.mode ?? null,
        limit,
      ],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      invoiceId: r.invoice_id === null ? null : Number(r.invoice_id),
    }));
  }

  /**
   * Per Asia/Dhaka day in [from, to): the captured amount and count of the
   * partition's payments that succeeded that day (days without any are absent).
   */
  async dailyCollections(
    scope: TenantScope,
    from: Date,
    to: Date,
  ): Promise<{ date: string; collectedMinor: number; payments: number }[]> {
    const rows = await sql(this.txHost.tx).rows<{ date: string; total: string; n: number }>(
      `SELECT to_char(succeeded_at AT TIME ZONE 'Asia/Dhaka', 'YYYY-MM-DD') AS date,
              sum(amount_minor)::text AS total, count(*)::int AS n
         FROM payments
        WHERE status = 'SUCCEEDED' AND succeeded_at >= $3 AND succeeded_at < $4
          AND app_id = $1 AND mode = $2
        GROUP BY 1`,
      [scope.appId, scope.mode, from, to],
    );
    // Exact (NUMERIC): a day's sum past 2^53-1 is 422 naming the app, never a 500.
    return rows.map((r) => ({
      date: r.date,
      collectedMinor: safeMinor(
        exactMinor(r.total),
        scope.appId,
        'Daily collections',
        `collectedMinor of ${r.date}`,
      ),
      payments: r.n,
    }));
  }

  adminPage(query: PageQuery, filter: AdminPaymentFilter): Promise<Page<Payment>> {
    const where = { appId: filter.applicationId, mode: filter.mode };
    return pageOf(this.adminQuery(filter), 'p', query, {
      partitioned: !!(where.appId && where.mode),
      total:
        !filter.status &&
        !filter.excess &&
        !filter.risk &&
        !filter.appIds &&
        !filter.gateway &&
        !filter.range?.since &&
        !filter.range?.until &&
        !filter.search
          ? () => countedRows(this.txHost.tx, 'payments', where)
          : undefined,
    });
  }

  /** Every payment an operator's search selects, for an export. */
  adminExportOf(filter: AdminPaymentFilter): ListExport<Payment> {
    return listExport(this.txHost.tx, this.adminQuery(filter), 'p');
  }

  private adminQuery(filter: AdminPaymentFilter): SelectQueryBuilder<Payment> {
    const qb = this.repo.createQueryBuilder('p');
    if (filter.applicationId) qb.andWhere('p.app_id = :appId', { appId: filter.applicationId });
    if (filter.appIds) qb.andWhere('p.app_id = ANY(:appIds)', { appIds: filter.appIds });
    if (filter.mode) qb.andWhere('p.mode = :mode', { mode: filter.mode });
    if (filter.excess === 'true') qb.andWhere('p.excess_minor > 0');
    if (filter.excess === 'false') qb.andWhere('p.excess_minor = 0');
    if (filter.risk) qb.andWhere('p.risk_level = :risk', { risk: filter.risk });
    if (filter.gateway) qb.andWhere('p.gateway = :gateway', { gateway: filter.gateway });
    return filtered(qb, { status: filter.status, range: filter.range, search: filter.search });
  }

  /** Payments of several invoices at once, oldest first. */
  ofInvoices(scope: TenantScope, invoiceIds: number[]): Promise<Payment[]> {
    if (invoiceIds.length === 0) return Promise.resolve([]);
    return this.repo.find({
      where: this.payments.where(scope, { invoiceId: In(invoiceIds) }),
      order: { id: 'ASC' },
    });
  }

  /** The invoice's PENDING payments in id order, row-locked when `lock` (FOR UPDATE). */
  openOfInvoice(scope: TenantScope, invoiceId: number, lock = false): Promise<Payment[]> {
    return this.repo.find({
      where: this.payments.where(scope, { invoiceId, status: 'PENDING' }),
      order: { id: 'ASC' },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** The newest open, unexpired payment of the invoice for exactly this amount (through `gateway`, if given). */
  openForAmount(
    scope: TenantScope,
    invoiceId: number,
    amountMinor: number,
    now: Date,
    gateway?: string,
  ): Promise<Payment | null> {
    return this.repo.findOne({
      where: this.payments.where(scope, {
        invoiceId,
        status: 'PENDING',
        amountMinor,
        expiresAt: MoreThan(now),
        ...(gateway ? { gateway } : {}),
      }),
      order: { id: 'DESC' },
    });
  }

  /** How many PENDING payments (open checkouts) the invoice has. */
  countPendingOfInvoice(scope: TenantScope, invoiceId: number, now: Date): Promise<number> {
    return this.repo.count({
      where: this.payments.where(scope, { invoiceId, status: 'PENDING', expiresAt: MoreThan(now) }),
    });
  }

  /** How many of the app's payments in the mode are PENDING at the gateway (still need its credentials). */
  async countPendingAtGateway(scope: TenantScope, gateway: string): Promise<number> {
    const [row] = await sql(this.txHost.tx).rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM payments
        WHERE app_id = $1 AND mode = $2 AND gateway = $3 AND status = 'PENDING'`,
      [scope.appId, scope.mode, gateway],
    );
    return Number(row.n);
  }

  /**
   * The invoice's PENDING and EXPIRED payments not asked about since
   * `askedBefore`, claimed for one status query each (the claim is the
   * update itself, so replicas and racing clicks ask each at most once per
   * interval).
   */
  async claimStatusChecks(
    scope: TenantScope,
    invoiceId: number,
    now: Date,
    askedBefore: Date,
  ): Promise<Payment[]> {
    const rows = await sql(this.txHost.tx).rows<{ id: number }>(
      `UPDATE payments SET status_checked_at = $4
        WHERE app_id = $1 AND mode = $2 AND invoice_id = $3 AND status IN ('PENDING', 'EXPIRED')
          AND (status_checked_at IS NULL OR status_checked_at <= $5)
        RETURNING id`,
      [scope.appId, scope.mode, invoiceId, now, askedBefore],
    );
    const ids = rows.map((r) => Number(r.id));
    if (ids.length === 0) return [];
    return this.repo.find({ where: { id: In(ids) }, order: { id: 'ASC' } });
  }

  /**
   * Attaches the gateway's checkout to a PENDING payment that has none yet;
   * null when another call attached one first (or the payment moved on).
   */
  async attachCheckout(id: number, session: CheckoutSession, now: Date): Promise<Payment | null> {
    const sql = this.payments.sql;
    const [row] = await sql.rows(
      this.txHost.tx,
      `UPDATE ${sql.table} SET gateway_session_id = $2, checkout_url = $3, updated_at = $4
        WHERE id = $1 AND gateway_session_id IS NULL AND status = 'PENDING'
        RETURNING ${sql.selectList}`,
      [id, session.sessionId, session.checkoutUrl, now],
    );
    return row ?? null;
  }

  /**
   * A due PENDING payment whose gateway did not answer: the sweep asks again
   * after `until` (the lease, set once the question has ended), and the
   * expire-now test helper's `deadline` is kept.
   */
  async deferExpiry(id: number, until: Date, deadline?: Date): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE payments SET sweep_claimed_until = $2, expires_at = COALESCE($3, expires_at)
        WHERE id = $1 AND status = 'PENDING'`,
      [id, until, deadline ?? null],
    );
  }

  /** Ends a sweep's claim on a payment it asked about (the next question waits for its turn). */
  async releaseSweepClaim(id: number): Promise<void> {
    await sql(this.txHost.tx).run(`UPDATE payments SET sweep_claimed_until = NULL WHERE id = $1`, [
      id,
    ]);
  }

  /** The gateway confirmed a cancelled payment's checkout closed: it is asked about no more. */
  async checkoutClosed(id: number): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE payments SET checkout_open_until = NULL WHERE id = $1 AND status = 'CANCELLED'`,
      [id],
    );
  }

  /**
   * Claims (a lease, SKIP LOCKED) CANCELLED payments whose checkout may
   * still take a payment (`checkout_open_until` ahead) and that are due a
   * question: asked a minute after the cancel at first, then after a tenth
   * of the time since, at most hourly.
   */
  async claimOpenCancelled(now: Date, until: Date, limit: number): Promise<Payment[]> {
    const rows = await sql(this.txHost.tx).rows<{ id: string }>(
      `UPDATE payments SET sweep_claimed_until = $2, status_checked_at = $1
       WHERE id IN (
         SELECT id FROM payments
         WHERE status = 'CANCELLED' AND checkout_open_until > $1
           AND (sweep_claimed_until IS NULL OR sweep_claimed_until <= $1)
           AND (status_checked_at IS NULL OR status_checked_at <= $1::timestamptz - GREATEST(
                 interval '1 minute',
                 LEAST(interval '1 hour', ($1::timestamptz - (checkout_open_until - interval '72 hours')) / 10)))
         ORDER BY checkout_open_until LIMIT $3
         FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [now, until, limit],
    );
    const ids = rows.map((r) => Number(r.id));
    return ids.length ? this.repo.find({ where: { id: In(ids) }, order: { id: 'ASC' } }) : [];
  }

  /**
   * Claims up to `limit` due PENDING payments for one sweep (a lease until
   * `until`, SKIP LOCKED so replicas claim different rows), in one statement
   * that holds no lock after it returns.
   */
  async claimDue(now: Date, until: Date, limit: number): Promise<Payment[]> {
    const rows = await sql(this.txHost.tx).rows<{ id: string }>(
      `UPDATE payments SET sweep_claimed_until = $2
       WHERE id IN (
         SELECT id FROM payments
         WHERE status = 'PENDING' AND expires_at <= $1
           AND (sweep_claimed_until IS NULL OR sweep_claimed_until <= $1)
         -- Never asked first: payments whose gateway did not answer before
         -- (asked again after their lease) cannot hold back the others.
         ORDER BY sweep_claimed_until IS NOT NULL, expires_at LIMIT $3
         FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [now, until, limit],
    );
    const ids = rows.map((r) => Number(r.id));
    return ids.length
      ? this.repo.find({ where: { id: In(ids) }, order: { expiresAt: 'ASC' } })
      : [];
  }
}
