import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import { AuditEvent } from './audit-event.entity';

export interface AuditFilter {
  actorUserId?: number;
  action?: string;
  targetType?: string;
  targetId?: string;
  from?: string;
  to?: string;
}

/** Every query of the audit_events table (append-only). */
@Injectable()
export class AuditRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private get events() {
    return this.txHost.tx.getRepository(AuditEvent);
  }

  async insert(entry: Omit<AuditEvent, 'id'>): Promise<void> {
    await this.events.insert(entry as never);
  }

  /** Newest first. */
  page(query: PageQuery, filter: AuditFilter): Promise<Page<AuditEvent>> {
    const qb = this.events.createQueryBuilder('a');
    if (filter.actorUserId) qb.andWhere('a.actor_user_id = :u', { u: filter.actorUserId });
    if (filter.action) qb.andWhere('a.action = :action', { action: filter.action });
    if (filter.targetType) qb.andWhere('a.target_type = :tt', { tt: filter.targetType });
    if (filter.targetId) qb.andWhere('a.target_id = :tid', { tid: filter.targetId });
    if (filter.from) qb.andWhere('a.created_at >= :from', { from: new Date(filter.from) });
    if (filter.to) qb.andWhere('a.created_at < :to', { to: new Date(filter.to) });
    return pageOf(qb, 'a', { ...query, sortBy: 'createdAt', order: 'desc' });
  }
}
