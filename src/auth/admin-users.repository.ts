import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import { EntitySql } from '../database/entity-sql';
import { AdminUser, AdminUserStatus } from './admin-user.entity';

/** Every query of the admin_users table. */
@Injectable()
export class AdminUsersRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private get users() {
    return this.txHost.tx.getRepository(AdminUser);
  }

  insert(fields: Omit<AdminUser, 'id' | 'createdAt' | 'updatedAt'>): Promise<AdminUser> {
    return this.users.save(this.users.create(fields));
  }

  save(user: AdminUser): Promise<AdminUser> {
    return this.users.save(user);
  }

  byId(id: number): Promise<AdminUser | null> {
    return this.users.findOne({ where: { id } });
  }

  /** Row-locked (FOR UPDATE) until the transaction ends. */
  lockById(id: number): Promise<AdminUser | null> {
    return this.users.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** The ACTIVE super admins, row-locked in id order (the order every update locks in). */
  lockActiveSuperAdmins(): Promise<AdminUser[]> {
    return this.users.find({
      where: { superAdmin: true, status: 'ACTIVE' },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Users whose email equals `email` ignoring case (PostgreSQL's lower()). */
  byEmailIgnoringCase(email: string): Promise<AdminUser[]> {
    const users = EntitySql.of(this.txHost.tx.connection, AdminUser);
    return users.rows(
      this.txHost.tx,
      `SELECT ${users.selectList} FROM ${users.table} WHERE lower(email) = lower($1)`,
      [email],
    );
  }

  async setPasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.users.update({ id }, { passwordHash });
  }

  async setLastLoginAt(id: number, at: Date): Promise<void> {
    await this.users.update({ id }, { lastLoginAt: at });
  }

  count(): Promise<number> {
    return this.users.count();
  }

  /** A page of users; `search` matches email or name, case-insensitively, as a plain substring. */
  page(
    query: PageQuery,
    filter: { search?: string; status?: AdminUserStatus },
  ): Promise<Page<AdminUser>> {
    const qb = this.users.createQueryBuilder('u');
    if (filter.status) qb.andWhere('u.status = :status', { status: filter.status });
    if (filter.search) {
      const term = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      qb.andWhere('(u.email ILIKE :term OR u.name ILIKE :term)', { term });
    }
    return pageOf(qb, 'u', query);
  }
}
