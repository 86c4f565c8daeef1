import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Brackets, In } from 'typeorm';

import type { Page } from '../common/http/envelope';
import { likePrefix, type SearchScope } from '../common/http/list-filters';
import { pageOf, PageQuery } from '../common/http/pagination';
import { sql } from '../database/sql';
import { TenantRepo, TenantScope } from '../database/tenant';
import { Customer } from './customer.entity';

/** A customer search, read from the term (customers.service.ts). */
export interface CustomerMatch {
  /** The term in lower case: a reference or an email, compared case-insensitively. */
  lower: string;
  /** The term as a phone number, normalised (+8801XXXXXXXXX), when it reads as one. */
  phone: string | null;
}

export interface CustomerDetails {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
}

/** Every query of the customers table. */
@Injectable()
export class CustomersRepository {
  private readonly customers: TenantRepo<Customer>;

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    this.customers = new TenantRepo(txHost, Customer, 'Customer');
  }

  /**
   * Inserts the reference, or fills in / updates the details of the existing
   * row (race-safe). A known customer whose details would not change is only
   * read: an upsert that rewrites the row also locks it until the commit, so
   * every payment and invoice of one customer used to wait for the one
   * before it to commit.
   */
  async upsert(
    scope: TenantScope,
    externalId: string,
    details: CustomerDetails,
  ): Promise<Customer> {
    // Every new payment and invoice: sent straight to pg (`sql().prepared`), prepared once per connection.
    const [row] = await sql(this.txHost.tx).prepared<{
      id: number;
      name: string | null;
      email: string | null;
      phone: string | null;
      created_at: Date;
      updated_at: Date;
    }>(
      'customers_upsert',
      `WITH known AS (
         SELECT id, name, email, phone, created_at, updated_at FROM customers
          WHERE app_id = $1 AND mode = $2 AND external_id = $3
            AND ($4::text IS NULL OR name = $4) AND ($5::text IS NULL OR email = $5)
            AND ($6::text IS NULL OR phone = $6)
       ), written AS (
       INSERT INTO customers (app_id, mode, external_id, name, email, phone)
       SELECT $1, $2, $3, $4, $5, $6 WHERE NOT EXISTS (SELECT 1 FROM known)
       ON CONFLICT (app_id, mode, external_id) DO UPDATE SET
         name = COALESCE(EXCLUDED.name, customers.name),
         email = COALESCE(EXCLUDED.email, customers.email),
         phone = COALESCE(EXCLUDED.phone, customers.phone),
         updated_at = CASE WHEN (EXCLUDED.name, EXCLUDED.email, EXCLUDED.phone) IS NOT DISTINCT FROM (NULL, NULL, NULL)
                           THEN customers.updated_at ELSE now() END
       RETURNING id, name, email, phone, created_at, updated_at)
       SELECT * FROM known UNION ALL SELECT * FROM written`,
      [
        scope.appId,
        scope.mode,
        externalId,
        details.name ?? null,
        details.email ?? null,
        details.phone ?? null,
      ],
    );
    // A plain assignment: repo.create walks the entity's metadata per call.
    return Object.assign(new Customer(), {
      id: row.id,
      ...scope,
      externalId,
      name: row.name,
      email: row.email,
      phone: row.phone,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    });
  }

  byExternalId(scope: TenantScope, externalId: string): Promise<Customer | null> {
    return this.customers.repo.findOne({ where: this.customers.where(scope, { externalId }) });
  }

  get(scope: TenantScope, id: number): Promise<Customer> {
    return this.customers.get(scope, id);
  }

  /** Ids of the customers with this reference in any partition (optionally one app and/or mode). */
  async idsByExternalId(
    externalId: string,
    filter: { appId?: number; mode?: TenantScope['mode'] },
  ): Promise<number[]> {
    const rows = await this.customers.repo.find({
      select: { id: true },
      where: {
        externalId,
        ...(filter.appId ? { appId: filter.appId } : {}),
        ...(filter.mode ? { mode: filter.mode } : {}),
      },
    });
    return rows.map((c) => c.id);
  }

  byIds(ids: number[]): Promise<Customer[]> {
    return this.customers.repo.find({ where: { id: In([...new Set(ids)]) } });
  }

  /**
   * Ids of the customers a list search names exactly: by reference or email
   * (case-insensitive) or by phone, in the scope; at most `limit`. Each arm
   * is an index lookup (migration ListSearch).
   */
  async idsMatching(where: SearchScope, match: CustomerMatch, limit: number): Promise<number[]> {
    const rows = await sql(this.txHost.tx).rows<{ id: string }>(
      `SELECT id FROM customers
        WHERE (lower(external_id) = $1 OR lower(email) = $1 OR phone = $2)
          AND ($3::bigint IS NULL OR app_id = $3)
          AND ($4::bigint[] IS NULL OR app_id = ANY($4))
          AND ($5::mode IS NULL OR mode = $5::mode)
        LIMIT $6`,
      [
        match.lower,
        match.phone,
        where.appId ?? null,
        where.appIds ?? null,
        where.mode ?? null,
        limit,
      ],
    );
    return rows.map((r) => Number(r.id));
  }

  /**
   * A page of the partition's customers, newest first by default; `match`:
   * those whose reference, name or email starts with the term
   * (case-insensitive), or whose phone is the term.
   */
  page(scope: TenantScope, query: PageQuery, match: CustomerMatch | null): Promise<Page<Customer>> {
    const qb = this.customers.repo.createQueryBuilder('c').where(this.customers.where(scope));
    if (match) {
      const prefix = likePrefix(match.lower);
      qb.andWhere(
        new Brackets((or) => {
          or.where('lower(c.external_id) LIKE :prefix', { prefix })
            .orWhere('lower(c.name) LIKE :prefix')
            .orWhere('lower(c.email) LIKE :prefix');
          if (match.phone) or.orWhere('c.phone = :phone', { phone: match.phone });
        }),
      );
    }
    return pageOf(qb, 'c', query);
  }
}
