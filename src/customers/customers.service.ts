import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AppError } from '../common/errors/app-error';
import { TenantRepo, TenantScope } from '../database/tenant';
import { Customer } from './customer.entity';

/** The customer record other features receive from this service. */
export type { Customer } from './customer.entity';

export interface CustomerDetails {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
}

/** Customers exist per app and mode, created on first use of a reference. */
@Injectable()
export class CustomersService {
  private readonly customers: TenantRepo<Customer>;

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    this.customers = new TenantRepo(txHost, Customer, 'Customer');
  }

  /**
   * The customer with this reference, created if new (race-safe: one row per
   * reference whatever the concurrency). Details given now fill in or update
   * the stored ones.
   */
  async findOrCreate(
    scope: TenantScope,
    externalId: string,
    details: CustomerDetails = {},
  ): Promise<Customer> {
    const rows: {
      id: number;
      name: string | null;
      email: string | null;
      phone: string | null;
      created_at: Date;
      updated_at: Date;
    }[] = await this.txHost.tx.query(
      `INSERT INTO customers (app_id, mode, external_id, name, email, phone)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (app_id, mode, external_id) DO UPDATE SET
         name = COALESCE(EXCLUDED.name, customers.name),
         email = COALESCE(EXCLUDED.email, customers.email),
         phone = COALESCE(EXCLUDED.phone, customers.phone),
         updated_at = CASE WHEN (EXCLUDED.name, EXCLUDED.email, EXCLUDED.phone) IS NOT DISTINCT FROM (NULL, NULL, NULL)
                           THEN customers.updated_at ELSE now() END
       RETURNING id, name, email, phone, created_at, updated_at`,
      [
        scope.appId,
        scope.mode,
        externalId,
        details.name ?? null,
        details.email ?? null,
        details.phone ?? null,
      ],
    );
    const row = rows[0];
    return this.customers.repo.create({
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

  async findByExternalId(scope: TenantScope, externalId: string): Promise<Customer | null> {
    return this.customers.repo.findOne({ where: this.customers.where(scope, { externalId }) });
  }

  async getByExternalId(scope: TenantScope, externalId: string): Promise<Customer> {
    const c = await this.findByExternalId(scope, externalId);
    if (!c) throw AppError.notFound('Customer');
    return c;
  }

  get(scope: TenantScope, id: number): Promise<Customer> {
    return this.customers.get(scope, id);
  }

  async byIds(ids: number[]): Promise<Map<number, Customer>> {
    if (ids.length === 0) return new Map();
    const rows = await this.customers.repo
      .createQueryBuilder('c')
      .where('c.id IN (:...ids)', { ids: [...new Set(ids)] })
      .getMany();
    return new Map(rows.map((c) => [c.id, c]));
  }
}
