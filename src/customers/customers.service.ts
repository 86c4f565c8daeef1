import { Injectable } from '@nestjs/common';

import { AppError } from '../common/errors/app-error';
import type { TenantScope } from '../database/tenant';
import { Customer } from './customer.entity';
import { CustomerDetails, CustomersRepository } from './customers.repository';

/** The customer record other features receive from this service. */
export type { Customer } from './customer.entity';
export type { CustomerDetails } from './customers.repository';

/** Customers exist per app and mode, created on first use of a reference. */
@Injectable()
export class CustomersService {
  constructor(private readonly customers: CustomersRepository) {}

  /**
   * The customer with this reference, created if new (race-safe: one row per
   * reference whatever the concurrency). Details given now fill in or update
   * the stored ones.
   */
  findOrCreate(
    scope: TenantScope,
    externalId: string,
    details: CustomerDetails = {},
  ): Promise<Customer> {
    return this.customers.upsert(scope, externalId, details);
  }

  findByExternalId(scope: TenantScope, externalId: string): Promise<Customer | null> {
    return this.customers.byExternalId(scope, externalId);
  }

  async getByExternalId(scope: TenantScope, externalId: string): Promise<Customer> {
    const c = await this.findByExternalId(scope, externalId);
    if (!c) throw AppError.notFound('Customer');
    return c;
  }

  get(scope: TenantScope, id: number): Promise<Customer> {
    return this.customers.get(scope, id);
  }

  /** Operators: the customers with this reference across apps and modes (optionally narrowed). */
  idsByExternalId(
    externalId: string,
    filter: { appId?: number; mode?: TenantScope['mode'] } = {},
  ): Promise<number[]> {
    return this.customers.idsByExternalId(externalId, filter);
  }

  async byIds(ids: number[]): Promise<Map<number, Customer>> {
    if (ids.length === 0) return new Map();
    const rows = await this.customers.byIds(ids);
    return new Map(rows.map((c) => [c.id, c]));
  }
}
