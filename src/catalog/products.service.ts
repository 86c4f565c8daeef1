import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../audit';
import { DomainEventBus } from '../common/domain-events';
import { AppError } from '../common/errors/app-error';
import { Page } from '../common/http/envelope';
import type { PageQuery } from '../common/http/pagination';
import type { TenantScope } from '../database/tenant';
import { isForeignKeyViolation } from '../database/transaction';
import type { Benefit } from './benefit.entity';
import { BenefitsService } from './benefits.service';
import { CatalogRepository } from './catalog.repository';
import { ProductBenefitsChanged } from './catalog-events';
import type { Price } from './price.entity';
import type { Product } from './product.entity';
import { nextProductStatus, ProductStatus } from './product-state';

/** A product with everything its response shows. */
export interface ProductDetails {
  product: Product;
  prices: Price[];
  benefits: Benefit[];
}

@Injectable()
export class ProductsService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly benefits: BenefitsService,
    private readonly audit: AuditService,
    private readonly bus: DomainEventBus,
  ) {}

  /** New products are DRAFT: they become ACTIVE with their first price. */
  @Transactional()
  async create(
    scope: TenantScope,
    input: { name: string; description?: string | null },
  ): Promise<ProductDetails> {
    try {
      const product = await this.catalog.insertProduct({
        ...scope,
        name: input.name,
        description: input.description ?? null,
        status: 'DRAFT',
      });
      await this.audit.record({
        adminOnly: true,
        action: 'product.created',
        targetType: 'product',
        targetId: product.id,
        after: { appId: scope.appId, mode: scope.mode, name: product.name },
      });
      return { product, prices: [], benefits: [] };
    } catch (err) {
      if (isForeignKeyViolation(err)) throw AppError.notFound('App');
      throw err;
    }
  }

  async get(scope: TenantScope, id: number): Promise<ProductDetails> {
    const [details] = await this.withDetails(scope, [await this.catalog.getProduct(scope, id)]);
    return details;
  }

  /** One page of products, then one query for their prices and one for their benefits. */
  async list(
    scope: TenantScope,
    query: PageQuery & { status?: ProductStatus },
  ): Promise<Page<ProductDetails>> {
    const page = await this.catalog.pageOfProducts(scope, query, { status: query.status });
    return new Page(await this.withDetails(scope, page.items), page.pagination);
  }

  /** Renames a product or changes its description (any status; prices and benefits stay). */
  @Transactional()
  async update(
    scope: TenantScope,
    id: number,
    input: { name?: string; description?: string | null },
  ): Promise<ProductDetails> {
    const product = await this.catalog.lockProduct(scope, id);
    const before = { name: product.name, description: product.description };
    if (input.name !== undefined) product.name = input.name;
    if (input.description !== undefined) product.description = input.description;
    const saved = await this.catalog.saveProduct(product);
    await this.audit.record({
      adminOnly: true,
      action: 'product.updated',
      targetType: 'product',
      targetId: id,
      before,
      after: { name: saved.name, description: saved.description },
    });
    const [details] = await this.withDetails(scope, [saved]);
    return details;
  }

  /** ARCHIVED: no new purchases and no new prices. Archiving again is a no-op. */
  @Transactional()
  async archive(scope: TenantScope, id: number): Promise<ProductDetails> {
    const product = await this.catalog.lockProduct(scope, id);
    const next = nextProductStatus(product.status, 'archive');
    const saved =
      next === product.status
        ? product
        : await this.catalog.saveProduct(Object.assign(product, { status: next }));
    await this.audit.record({
      adminOnly: true,
      action: 'product.archived',
      targetType: 'product',
      targetId: id,
      after: { status: saved.status },
    });
    const [details] = await this.withDetails(scope, [saved]);
    return details;
  }

  /**
   * Attaches a benefit of the same app and mode (another partition's benefit
   * is 404). Attaching it again changes nothing. Inactive benefits may be
   * attached; only active ones are granted.
   */
  @Transactional()
  async attachBenefit(
    scope: TenantScope,
    productId: number,
    benefitId: number,
  ): Promise<ProductDetails> {
    const product = await this.catalog.getProduct(scope, productId);
    const benefit = await this.benefits.get(scope, benefitId);
    await this.catalog.link(scope, productId, benefitId);
    if (benefit.active) await this.bus.publish(new ProductBenefitsChanged(scope, [productId]));
    await this.audit.record({
      adminOnly: true,
      action: 'product.benefit_attached',
      targetType: 'product',
      targetId: productId,
      after: { benefitId },
    });
    const [details] = await this.withDetails(scope, [product]);
    return details;
  }

  /** For admin routes: the product's own partition, found by id alone. */
  async scopeOf(id: number): Promise<TenantScope> {
    const scope = await this.catalog.productScope(id);
    if (!scope) throw AppError.notFound('Product');
    return scope;
  }

  /** Prices and benefits of many products in two queries, whatever their number. */
  private async withDetails(scope: TenantScope, products: Product[]): Promise<ProductDetails[]> {
    if (products.length === 0) return [];
    const ids = products.map((p) => p.id);
    // Sequential on purpose: inside a transaction both run on one connection.
    const prices = await this.catalog.pricesOfProducts(scope, ids);
    const links = await this.catalog.linksOfProducts(scope, ids);
    const details = new Map<number, ProductDetails>(
      products.map((product) => [product.id, { product, prices: [], benefits: [] }]),
    );
    for (const price of prices) details.get(price.productId)!.prices.push(price);
    for (const link of links) details.get(link.productId)!.benefits.push(link.benefit!);
    return products.map((p) => details.get(p.id)!);
  }
}
