import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit';
import { TransactionHost, Transactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import { TenantRepo, TenantScope } from '../database/tenant';
import { isForeignKeyViolation, isUniqueViolation } from '../database/transaction';
import { Benefit } from './benefit.entity';

@Injectable()
export class BenefitsService {
  private readonly benefits: TenantRepo<Benefit>;

  constructor(
    txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditService,
  ) {
    this.benefits = new TenantRepo(txHost, Benefit, 'Benefit');
  }

  @Transactional()
  async create(
    scope: TenantScope,
    input: { lookupKey: string; name: string; metadata?: string },
  ): Promise<Benefit> {
    try {
      const benefit = await this.benefits.repo.save(
        this.benefits.repo.create({
          ...scope,
          lookupKey: input.lookupKey,
          name: input.name,
          metadata: input.metadata ?? null,
          active: false,
        }),
      );
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
    return this.benefits.get(scope, id);
  }

  list(scope: TenantScope, query: PageQuery): Promise<Page<Benefit>> {
    return pageOf(
      this.benefits.repo.createQueryBuilder('b').where(this.benefits.where(scope)),
      'b',
      query,
    );
  }

  /** Makes a benefit grantable; activating an active benefit is a no-op. */
  @Transactional()
  async activate(scope: TenantScope, id: number): Promise<Benefit> {
    const benefit = await this.benefits.getForUpdate(scope, id);
    if (benefit.active) return benefit;
    benefit.active = true;
    const saved = await this.benefits.repo.save(benefit);
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

  /** For admin routes: the benefit's own partition, found by id alone. */
  async scopeOf(id: number): Promise<TenantScope> {
    const b = await this.benefits.repo.findOne({
      where: { id },
      select: { id: true, appId: true, mode: true },
    });
    if (!b) throw AppError.notFound('Benefit');
    return { appId: b.appId, mode: b.mode };
  }
}
