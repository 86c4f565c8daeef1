import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../audit';
import { AppError } from '../common/errors/app-error';
import { assertCurrency } from '../common/money/money';
import type { TenantScope } from '../database/tenant';
import { CatalogRepository } from './catalog.repository';
import type { Price } from './price.entity';
import { priceTerms, PriceTermsInput } from './price-terms';
import { nextProductStatus } from './product-state';

export interface CreatePriceInput extends PriceTermsInput {
  amountMinor: number;
  currency?: string;
}

@Injectable()
export class PricesService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly audit: AuditService,
  ) {}

  /**
   * Creates an active price. The product row is locked, so the DRAFT -> ACTIVE
   * step happens once and in the same transaction as the price; an ARCHIVED
   * product refuses new prices (409 INVALID_STATE).
   */
  @Transactional()
  async create(scope: TenantScope, productId: number, input: CreatePriceInput): Promise<Price> {
    const currency = assertCurrency(input.currency);
    const terms = priceTerms(input);
    const product = await this.catalog.lockProduct(scope, productId);
    const next = nextProductStatus(product.status, 'price_added');
    const price = await this.catalog.insertPrice({
      ...scope,
      productId,
      amountMinor: input.amountMinor,
      currency,
      ...terms,
      active: true,
    });
    if (next !== product.status)
      await this.catalog.saveProduct(Object.assign(product, { status: next }));
    await this.audit.record({
      action: 'price.created',
      targetType: 'price',
      targetId: price.id,
      after: { ...scope, productId, amountMinor: price.amountMinor },
      adminOnly: true,
    });
    return price;
  }

  /**
   * Stops new purchases of a price; existing subscriptions keep it. Already
   * inactive: no-op. Allowed on any product status, archived included. The
   * product keeps its status even when no active price is left.
   */
  @Transactional()
  async deactivate(scope: TenantScope, productId: number, priceId: number): Promise<Price> {
    const price = await this.catalog.lockPrice(scope, priceId);
    if (price.productId !== productId) throw AppError.notFound('Price');
    if (!price.active) return price;
    price.active = false;
    await this.audit.record({
      action: 'price.deactivated',
      targetType: 'price',
      targetId: price.id,
      after: { ...scope, productId },
      adminOnly: true,
    });
    return this.catalog.savePrice(price);
  }
}
