import { Injectable } from '@nestjs/common';

import { AppError } from '../common/errors/app-error';
import type { TenantScope } from '../database/tenant';
import type { Benefit } from './benefit.entity';
import { CatalogRepository } from './catalog.repository';
import type { Price } from './price.entity';
import type { Product } from './product.entity';
import { isPurchasable } from './product-state';

/**
 * What other features (purchases, subscriptions, entitlements) need from the
 * catalog. Works inside the caller's transaction and outside any.
 */
@Injectable()
export class CatalogService {
  constructor(private readonly catalog: CatalogRepository) {}

  /**
   * The price and its product for a new purchase. 404 RESOURCE_NOT_FOUND if
   * the price is not in the scope; 409 INVALID_STATE if the price is inactive
   * or the product is not ACTIVE (ARCHIVED). Inside a transaction both rows
   * are read FOR SHARE, so a concurrent archive or deactivation waits for the
   * purchase to commit (and a purchase waits for one in progress).
   */
  async priceForPurchase(
    scope: TenantScope,
    priceId: number,
  ): Promise<{ price: Price; product: Product }> {
    const price = await this.catalog.priceShared(scope, priceId);
    if (!price) throw AppError.notFound('Price');
    const product = await this.catalog.productShared(scope, price.productId);
    if (!product) throw AppError.notFound('Product');
    if (!price.active)
      throw AppError.invalidState(`Price ${price.id} is inactive and cannot be purchased`);
    if (!isPurchasable(product.status)) {
      throw AppError.invalidState(
        `Product ${product.id} is ${product.status} and cannot be purchased`,
      );
    }
    return { price, product };
  }

  /** The active benefits attached to a product (404 if the product is not in the scope), in order of attachment. */
  async activeBenefitsOfProduct(scope: TenantScope, productId: number): Promise<Benefit[]> {
    await this.catalog.getProduct(scope, productId);
    const links = await this.catalog.linksOfProducts(scope, [productId], { activeOnly: true });
    return links.map((l) => l.benefit!);
  }

  /** The ids of the products' ONE_TIME prices, active or not (what was bought through them counts). */
  async oneTimePriceIdsOf(scope: TenantScope, productIds: readonly number[]): Promise<number[]> {
    const prices = await this.catalog.pricesOfProducts(scope, [...productIds]);
    return prices.filter((p) => p.type === 'ONE_TIME').map((p) => p.id);
  }

  /** A price of the scope, or null (any status: for grants of what was already bought). */
  priceOf(scope: TenantScope, id: number): Promise<Price | null> {
    return this.catalog.findPrice(scope, id);
  }

  /** Benefits of the scope by id (any status). */
  benefitsByIds(scope: TenantScope, ids: number[]): Promise<Benefit[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.catalog.benefitsByIds(scope, ids);
  }
}
