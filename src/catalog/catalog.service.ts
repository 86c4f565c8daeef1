import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { FindOptionsWhere } from 'typeorm';
import { AppError } from '../common/errors/app-error';
import { TenantRepo, TenantRow, TenantScope } from '../database/tenant';
import type { Benefit } from './benefit.entity';
import { Price } from './price.entity';
import { ProductBenefit } from './product-benefit.entity';
import { Product } from './product.entity';
import { isPurchasable } from './product-state';

/**
 * What other features (purchases, subscriptions, entitlements) need from the
 * catalog. Works inside the caller's transaction and outside any.
 */
@Injectable()
export class CatalogService {
  private readonly products: TenantRepo<Product>;
  private readonly prices: TenantRepo<Price>;
  private readonly links: TenantRepo<ProductBenefit>;

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    this.products = new TenantRepo(txHost, Product, 'Product');
    this.prices = new TenantRepo(txHost, Price, 'Price');
    this.links = new TenantRepo(txHost, ProductBenefit, 'Product benefit');
  }

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
    const price = await this.readShared(this.prices, scope, priceId);
    if (!price) throw AppError.notFound('Price');
    const product = await this.readShared(this.products, scope, price.productId);
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
    await this.products.get(scope, productId);
    const links = await this.links.repo.find({
      where: {
        ...this.links.where(scope, { productId }),
        benefit: { active: true },
      } as FindOptionsWhere<ProductBenefit>,
      relations: { benefit: true },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return links.map((l) => l.benefit!);
  }

  private async readShared<T extends TenantRow>(
    repo: TenantRepo<T>,
    scope: TenantScope,
    id: number,
  ): Promise<T | null> {
    if (!this.txHost.isTransactionActive()) return repo.findOne(scope, id);
    if (!Number.isSafeInteger(id) || id < 1) return null;
    return repo.repo.findOne({
      where: repo.where(scope, { id } as FindOptionsWhere<T>),
      lock: { mode: 'pessimistic_read' },
    });
  }
}
