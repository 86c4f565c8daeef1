import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit';
import { TransactionHost, Transactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { In } from 'typeorm';
import { AppError } from '../common/errors/app-error';
import { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import { TenantRepo, TenantScope } from '../database/tenant';
import { isForeignKeyViolation } from '../database/transaction';
import type { Benefit } from './benefit.entity';
import { BenefitsService } from './benefits.service';
import { Price } from './price.entity';
import { ProductBenefit } from './product-benefit.entity';
import { Product } from './product.entity';
import { nextProductStatus, ProductStatus } from './product-state';

/** A product with everything its response shows. */
export interface ProductDetails {
  product: Product;
  prices: Price[];
  benefits: Benefit[];
}

@Injectable()
export class ProductsService {
  private readonly products: TenantRepo<Product>;
  private readonly prices: TenantRepo<Price>;
  private readonly links: TenantRepo<ProductBenefit>;

  constructor(
    txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly benefits: BenefitsService,
    private readonly audit: AuditService,
  ) {
    this.products = new TenantRepo(txHost, Product, 'Product');
    this.prices = new TenantRepo(txHost, Price, 'Price');
    this.links = new TenantRepo(txHost, ProductBenefit, 'Product benefit');
  }

  /** New products are DRAFT: they become ACTIVE with their first price. */
  @Transactional()
  async create(
    scope: TenantScope,
    input: { name: string; description?: string | null },
  ): Promise<ProductDetails> {
    try {
      const product = await this.products.repo.save(
        this.products.repo.create({
          ...scope,
          name: input.name,
          description: input.description ?? null,
          status: 'DRAFT',
        }),
      );
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
    const [details] = await this.withDetails(scope, [await this.products.get(scope, id)]);
    return details;
  }

  /** One page of products, then one query for their prices and one for their benefits. */
  async list(
    scope: TenantScope,
    query: PageQuery & { status?: ProductStatus },
  ): Promise<Page<ProductDetails>> {
    const qb = this.products.repo.createQueryBuilder('p').where(this.products.where(scope));
    if (query.status) qb.andWhere('p.status = :status', { status: query.status });
    const page = await pageOf(qb, 'p', query);
    return new Page(await this.withDetails(scope, page.items), page.pagination);
  }

  /** ARCHIVED: no new purchases and no new prices. Archiving again is a no-op. */
  @Transactional()
  async archive(scope: TenantScope, id: number): Promise<ProductDetails> {
    const product = await this.products.getForUpdate(scope, id);
    const next = nextProductStatus(product.status, 'archive');
    const saved =
      next === product.status
        ? product
        : await this.products.repo.save(Object.assign(product, { status: next }));
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
    const product = await this.products.get(scope, productId);
    await this.benefits.get(scope, benefitId);
    await this.links.repo
      .createQueryBuilder()
      .insert()
      .into(ProductBenefit)
      .values({ appId: scope.appId, mode: scope.mode, productId, benefitId })
      .orIgnore()
      .execute();
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
    const p =
      Number.isSafeInteger(id) && id > 0
        ? await this.products.repo.findOne({
            where: { id },
            select: { id: true, appId: true, mode: true },
          })
        : null;
    if (!p) throw AppError.notFound('Product');
    return { appId: p.appId, mode: p.mode };
  }

  /** Prices and benefits of many products in two queries, whatever their number. */
  private async withDetails(scope: TenantScope, products: Product[]): Promise<ProductDetails[]> {
    if (products.length === 0) return [];
    const ids = products.map((p) => p.id);
    // Sequential on purpose: inside a transaction both run on one connection.
    const prices = await this.prices.repo.find({
      where: this.prices.where(scope, { productId: In(ids) }),
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    const links = await this.links.repo.find({
      where: this.links.where(scope, { productId: In(ids) }),
      relations: { benefit: true },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    const details = new Map<number, ProductDetails>(
      products.map((product) => [product.id, { product, prices: [], benefits: [] }]),
    );
    for (const price of prices) details.get(price.productId)!.prices.push(price);
    for (const link of links) details.get(link.productId)!.benefits.push(link.benefit!);
    return products.map((p) => details.get(p.id)!);
  }
}
