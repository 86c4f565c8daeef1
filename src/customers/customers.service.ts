import { Injectable } from '@nestjs/common';

import { AppError } from '../common/errors/app-error';
import type { Page } from '../common/http/envelope';
import {
  SEARCH_MATCH_LIMIT,
  type SearchScope,
  type SearchTerm,
  searchTerm,
} from '../common/http/list-filters';
import type { PageQuery } from '../common/http/pagination';
import type { TenantScope } from '../database/tenant';
import { Customer } from './customer.entity';
import { CustomerDetails, CustomerMatch, CustomersRepository } from './customers.repository';
import { normalizePhone } from './phone';

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

  /**
   * Ids of the customers a list's search term names exactly (reference or
   * email, case-insensitive, or phone in any form customerPhone takes), in
   * the scope; at most SEARCH_MATCH_LIMIT. For the invoice, payment and
   * refund lists' `q`.
   */
  idsMatching(where: SearchScope, term: SearchTerm): Promise<number[]> {
    return this.customers.idsMatching(where, matchOf(term), SEARCH_MATCH_LIMIT);
  }

  /** The partition's customers, a page at a time; `q`: reference, name or email starting with it, or that phone. */
  list(scope: TenantScope, query: PageQuery, q?: string): Promise<Page<Customer>> {
    const term = searchTerm(q);
    return this.customers.page(scope, query, term ? matchOf(term) : null);
  }
}

function matchOf(term: SearchTerm): CustomerMatch {
  return { lower: term.lower, phone: normalizePhone(term.text) };
}
