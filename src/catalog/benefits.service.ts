import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../audit';
import { DomainEventBus } from '../common/domain-events';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Page } from '../common/http/envelope';
import type { PageQuery } from '../common/http/pagination';
import type { TenantScope } from '../database/tenant';
import { isForeignKeyViolation, isUniqueViolation } from '../database/transaction';
import type { Benefit } from './benefit.entity';
import { CatalogRepository } from './catalog.repository';
import { ProductBenefitsChanged } from './catalog-events';

@Injectable()
export class BenefitsService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly audit: AuditService,
    private readonly bus: DomainEventBus,
  ) {}

  @Transactional()
  async create(
    scope: TenantScope,
    input: { lookupKey: string; name: string; metadata?: string },
  ): Promise<Benefit> {
    try {
      const benefit = await this.catalog.insertBenefit({
        ...scope,
        lookupKey: input.lookupKey,
        name: input.name,
        metadata: input.metadata ?? null,
        active: false,
      });
      await this.audit.record({
        adminOnly: true,
        action: 'benefit.created',
        targetType: 'benefit',
        targetId: benefit.id,
        after: { appId: scope.appId, mode: scope.mode, lookupKey: benefit.lookupKey },
      });
      return benefit;
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AppError(
          ErrorCode.DUPLICATE_RESOURCE,
          `A benefit with lookupKey ${input.lookupKey} exists`,
        );
      if (isForeignKeyViolation(err)) throw AppError.notFound('App');
      throw err;
    }
  }

  get(scope: TenantScope, id: number): Promise<Benefit> {
    return this.catalog.getBenefit(scope, id);
  }

  list(scope: TenantScope, query: PageQuery): Promise<Page<Benefit>> {
    return this.catalog.pageOfBenefits(scope, query);
  }

  /** Makes a benefit grantable; activating an active benefit is a no-op. */
  @Transactional()
  async activate(scope: TenantScope, id: number): Promise<Benefit> {
    const benefit = await this.catalog.lockBenefit(scope, id);
    if (benefit.active) return benefit;
    benefit.active = true;
    const saved = await this.catalog.saveBenefit(benefit);
    const products = await this.catalog.productIdsCarrying(scope, id);
    if (products.length > 0) await this.bus.publish(new ProductBenefitsChanged(scope, products));
    await this.audit.record({
      adminOnly: true,
      action: 'benefit.activated',
      targetType: 'benefit',
      targetId: id,
      before: { active: false },
      after: { active: true },
    });
    return saved;
  }

  /** Renames a benefit or changes its metadata; its lookup key and grants stay. */
  @Transactional()
  async update(
    scope: TenantScope,
    id: number,
    input: { name?: string; metadata?: string | null },
  ): Promise<Benefit> {
    const benefit = await this.catalog.lockBenefit(scope, id);
    const before = { name: benefit.name, metadata: benefit.metadata };
    if (input.name !== undefined) benefit.name = input.name;
    if (input.metadata !== undefined) benefit.metadata = input.metadata;
    const saved = await this.catalog.saveBenefit(benefit);
    await this.audit.record({
      adminOnly: true,
      action: 'benefit.updated',
      targetType: 'benefit',
      targetId: id,
      before,
      after: { name: saved.name, metadata: saved.metadata },
    });
    return saved;
  }

  /** For admin routes: the benefit's own partition, found by id alone. */
  async scopeOf(id: number): Promise<TenantScope> {
    const scope = await this.catalog.benefitScope(id);
    if (!scope) throw AppError.notFound('Benefit');
    return scope;
  }
}
