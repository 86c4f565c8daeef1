import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { In } from 'typeorm';

import { sql } from '../database/sql';
import { TenantRepo, TenantScope } from '../database/tenant';
import { Customer } from './customer.entity';

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
}
