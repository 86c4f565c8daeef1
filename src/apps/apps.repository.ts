import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { In } from 'typeorm';

import type { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import { App, AppStatus } from './app.entity';

/** Every query of the apps table. */
@Injectable()
export class AppsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private get apps() {
    return this.txHost.tx.getRepository(App);
  }

  insert(fields: Omit<App, 'id' | 'createdAt' | 'updatedAt'>): Promise<App> {
    return this.apps.save(this.apps.create(fields));
  }

  save(app: App): Promise<App> {
    return this.apps.save(app);
  }

  byId(id: number): Promise<App | null> {
    return this.apps.findOne({ where: { id } });
  }

  /** Row-locked (FOR UPDATE) until the transaction ends. */
  lockById(id: number): Promise<App | null> {
    return this.apps.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Ids and names only. */
  names(ids: number[]): Promise<Pick<App, 'id' | 'name'>[]> {
    return this.apps.find({
      select: { id: true, name: true },
      where: { id: In([...new Set(ids)]) },
    });
  }

  page(query: PageQuery, filter: { status?: AppStatus; appIds?: number[] }): Promise<Page<App>> {
    const qb = this.apps.createQueryBuilder('a');
    if (filter.status) qb.andWhere('a.status = :status', { status: filter.status });
    if (filter.appIds) qb.andWhere('a.id = ANY(:appIds)', { appIds: filter.appIds });
    return pageOf(qb, 'a', query);
  }
}
