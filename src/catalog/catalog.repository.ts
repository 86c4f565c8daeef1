import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { FindOptionsWhere, In } from 'typeorm';

import type { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import { TenantRepo, TenantRow, TenantScope } from '../database/tenant';
import { Benefit } from './benefit.entity';
import { Price } from './price.entity';
import { Product } from './product.entity';
import { ProductBenefit } from './product-benefit.entity';
import type { ProductStatus } from './product-state';

/** Every query of the catalog's tables: products, prices, benefits and their links. */
@Injectable()
export class CatalogRepository {
  private readonly products: TenantRepo<Product>;
  private readonly prices: TenantRepo<Price>;
  private readonly benefits: TenantRepo<Benefit>;
  private readonly links: TenantRepo<ProductBenefit>;

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    this.products = new TenantRepo(txHost, Product, 'Product');
    this.prices = new TenantRepo(txHost, Price, 'Price');
    this.benefits = new TenantRepo(txHost, Benefit, 'Benefit');
    this.links = new TenantRepo(txHost, ProductBenefit, 'Product benefit');
  }

  // Products

  insertProduct(fields: Omit<Product, 'id' | 'createdAt' | 'updatedAt'>): Promise<Product> {
    return this.products.repo.save(this.products.repo.create(fields));
  }

  saveProduct(product: Product): Promise<Product> {
    return this.products.repo.save(product);
  }

  /** 404 if the product is not in the scope. */
  getProduct(scope: TenantScope, id: number): Promise<Product> {
    return this.products.get(scope, id);
  }

  /** Row-locked (FOR UPDATE) until the transaction ends; 404 if not in the scope. */
  lockProduct(scope: TenantScope, id: number): Promise<Product> {
    return this.products.getForUpdate(scope, id);
  }

  /** Read FOR SHARE inside a transaction (a concurrent archive waits), plainly outside one. */
  productShared(scope: TenantScope, id: number): Promise<Product | null> {
    return this.readShared(this.products, scope, id);
  }

  pageOfProducts(
    scope: TenantScope,
    query: PageQuery,
    filter: { status?: ProductStatus },
  ): Promise<Page<Product>> {
    const qb = this.products.repo.createQueryBuilder('p').where(this.products.where(scope));
    if (filter.status) qb.andWhere('p.status = :status', { status: filter.status });
    return pageOf(qb, 'p', query);
  }

  /** The product's own partition, found by id alone (admin routes). */
  productScope(id: number): Promise<TenantScope | null> {
    return this.scopeOf(this.products, id);
  }

  // Prices

  insertPrice(fields: Omit<Price, 'id' | 'createdAt' | 'updatedAt'>): Promise<Price> {
    return this.prices.repo.save(this.prices.repo.create(fields));
  }

  savePrice(price: Price): Promise<Price> {
    return this.prices.repo.save(price);
  }

  /** Row-locked (FOR UPDATE) until the transaction ends; 404 if not in the scope. */
  lockPrice(scope: TenantScope, id: number): Promise<Price> {
    return this.prices.getForUpdate(scope, id);
  }

  /** Read FOR SHARE inside a transaction (a concurrent deactivation waits), plainly outside one. */
  priceShared(scope: TenantScope, id: number): Promise<Price | null> {
    return this.readShared(this.prices, scope, id);
  }

  findPrice(scope: TenantScope, id: number): Promise<Price | null> {
    return this.prices.findOne(scope, id);
  }

  /** Prices of many products, oldest first. */
  pricesOfProducts(scope: TenantScope, productIds: number[]): Promise<Price[]> {
    return this.prices.repo.find({
      where: this.prices.where(scope, { productId: In(productIds) }),
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  // Benefits

  insertBenefit(fields: Omit<Benefit, 'id' | 'createdAt' | 'updatedAt'>): Promise<Benefit> {
    return this.benefits.repo.save(this.benefits.repo.create(fields));
  }

  saveBenefit(benefit: Benefit): Promise<Benefit> {
    return this.benefits.repo.save(benefit);
  }

  /** 404 if the benefit is not in the scope. */
  getBenefit(scope: TenantScope, id: number): Promise<Benefit> {
    return this.benefits.get(scope, id);
  }

  /** Row-locked (FOR UPDATE) until the transaction ends; 404 if not in the scope. */
  lockBenefit(scope: TenantScope, id: number): Promise<Benefit> {
    return this.benefits.getForUpdate(scope, id);
  }

  pageOfBenefits(scope: TenantScope, query: PageQuery): Promise<Page<Benefit>> {
    return pageOf(
      this.benefits.repo.createQueryBuilder('b').where(this.benefits.where(scope)),
      'b',
      query,
    );
  }

  benefitsByIds(scope: TenantScope, ids: number[]): Promise<Benefit[]> {
    return this.benefits.repo.find({ where: this.benefits.where(scope, { id: In(ids) }) });
  }

  /** The benefit's own partition, found by id alone (admin routes). */
  benefitScope(id: number): Promise<TenantScope | null> {
    return this.scopeOf(this.benefits, id);
  }

  // Product <-> benefit links

  /**
   * Attaches a benefit; attaching it again changes nothing (ON CONFLICT DO
   * NOTHING on the (product, benefit) key; created_at is the column's default).
   */
  async link(scope: TenantScope, productId: number, benefitId: number): Promise<void> {
    await this.links.sql.insertMany(
      this.txHost.tx,
      [{ appId: scope.appId, mode: scope.mode, productId, benefitId }],
      { ignoreConflicts: true },
    );
  }

  /** The products that carry a benefit. */
  async productIdsCarrying(scope: TenantScope, benefitId: number): Promise<number[]> {
    const links = await this.links.repo.find({
      where: this.links.where(scope, { benefitId }),
      order: { productId: 'ASC' },
    });
    return links.map((l) => Number(l.productId));
  }

  /** The links of many products with their benefits, in order of attachment. */
  linksOfProducts(
    scope: TenantScope,
    productIds: number[],
    filter: { activeOnly?: boolean } = {},
  ): Promise<ProductBenefit[]> {
    return this.links.repo.find({
      where: {
        ...this.links.where(scope, { productId: In(productIds) }),
        ...(filter.activeOnly ? { benefit: { active: true } } : {}),
      } as FindOptionsWhere<ProductBenefit>,
      relations: { benefit: true },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
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

  private async scopeOf<T extends TenantRow>(
    repo: TenantRepo<T>,
    id: number,
  ): Promise<TenantScope | null> {
    if (!Number.isSafeInteger(id) || id < 1) return null;
    const row = await repo.repo.findOne({
      where: { id } as FindOptionsWhere<T>,
      select: { id: true, appId: true, mode: true } as never,
    });
    return row ? { appId: row.appId, mode: row.mode } : null;
  }
}
