import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { In } from 'typeorm';

import type { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import { sql } from '../database/sql';
import { TenantRepo, TenantScope } from '../database/tenant';
import { Subscription } from './subscription.entity';
import type { SubscriptionStatus } from './subscription-state';

export interface SubscriptionFilter {
  status?: SubscriptionStatus;
  customerIds?: number[];
  applicationId?: number;
  mode?: Mode;
  /** An app-scoped admin's apps (section 15). */
  appIds?: number[];
}

/** Every query of the subscriptions table. */
@Injectable()
export class SubscriptionsRepository {
  private readonly subscriptions: TenantRepo<Subscription>;

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    this.subscriptions = new TenantRepo(txHost, Subscription, 'Subscription');
  }

  insert(fields: Omit<Subscription, 'id' | 'createdAt' | 'updatedAt'>): Promise<Subscription> {
    return this.subscriptions.repo.save(this.subscriptions.repo.create(fields));
  }

  /** Writes every column of an existing subscription (one UPDATE, no read first). */
  async update(sub: Subscription): Promise<Subscription> {
    const { id, createdAt: _created, ...fields } = sub;
    await this.subscriptions.repo.update({ id }, fields);
    return sub;
  }

  /** 404 if not in the scope. */
  get(scope: TenantScope, id: number): Promise<Subscription> {
    return this.subscriptions.get(scope, id);
  }

  /** Row-locked (FOR UPDATE) until the transaction ends; 404 if not in the scope. */
  lock(scope: TenantScope, id: number): Promise<Subscription> {
    return this.subscriptions.getForUpdate(scope, id);
  }

  page(
    scope: TenantScope | null,
    query: PageQuery,
    filter: SubscriptionFilter,
  ): Promise<Page<Subscription>> {
    const qb = this.subscriptions.repo.createQueryBuilder('s');
    if (scope) qb.where('s.appId = :appId AND s.mode = :mode', scope);
    if (filter.applicationId) qb.andWhere('s.appId = :fAppId', { fAppId: filter.applicationId });
    if (filter.appIds) qb.andWhere('s.appId = ANY(:appIds)', { appIds: filter.appIds });
    if (filter.mode) qb.andWhere('s.mode = :fMode', { fMode: filter.mode });
    if (filter.status) qb.andWhere('s.status = :status', { status: filter.status });
    if (filter.customerIds)
      qb.andWhere('s.customerId IN (:...customerIds)', { customerIds: filter.customerIds });
    return pageOf(qb, 's', query, {
      partitioned: !!(scope || (filter.applicationId && filter.mode)),
    });
  }

  /** The TRIALING and ACTIVE subscriptions of these products, row-locked in id order. */
  liveOfProductsForUpdate(
    scope: TenantScope,
    productIds: readonly number[],
  ): Promise<Subscription[]> {
    return this.subscriptions.repo.find({
      where: this.subscriptions.where(scope, {
        productId: In([...productIds]),
        status: In(['TRIALING', 'ACTIVE'] as SubscriptionStatus[]),
      }),
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Ids whose next scheduled moment is at or before `now` (index subscriptions_due), soonest first. */
  async dueIds(now: Date, limit: number): Promise<number[]> {
    const rows = await sql(this.txHost.tx).rows<{ id: number }>(
      `SELECT id FROM subscriptions WHERE next_action_at <= $1 ORDER BY next_action_at, id LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => Number(r.id));
  }

  /** Unlocked: the subscription's scope and open invoice, as last committed (null if gone). */
  async openInvoiceOf(
    id: number,
  ): Promise<{ scope: TenantScope; openInvoiceId: number | null } | null> {
    const sub = await this.subscriptions.repo.findOne({
      where: { id },
      select: { appId: true, mode: true, openInvoiceId: true },
    });
    return sub && { scope: { appId: sub.appId, mode: sub.mode }, openInvoiceId: sub.openInvoiceId };
  }

  /**
   * The subscription, row-locked, if it is still due at `now` and no other
   * worker holds it (FOR UPDATE SKIP LOCKED): replicas never process one twice.
   */
  async lockIfDue(id: number, now: Date): Promise<Subscription | null> {
    const sql = this.subscriptions.sql;
    const [sub] = await sql.rows(
      this.txHost.tx,
      `SELECT ${sql.selectList} FROM ${sql.table}
        WHERE id = $1 AND next_action_at <= $2
        FOR UPDATE SKIP LOCKED`,
      [id, now],
    );
    return sub ?? null;
  }
}
