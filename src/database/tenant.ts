import { EntityTarget, FindOptionsWhere, ObjectLiteral } from 'typeorm';

import { AppError } from '../common/errors/app-error';
import type { Mode } from '../common/http/request-context';
import { EntitySql } from './entity-sql';
import type { Tx } from './transaction';

/** The partition a record lives in: one app, one mode. */
export interface TenantScope {
  appId: number;
  mode: Mode;
}

export interface TenantRow extends ObjectLiteral {
  id: number;
  appId: number;
  mode: Mode;
}

/**
 * The one helper through which tenant tables are read: every lookup is
 * filtered by app and mode, so a record of another app or of the other mode
 * is simply not found (404, never 403: existence is not revealed).
 */
export class TenantRepo<T extends TenantRow> {
  constructor(
    private readonly txHost: Tx,
    private readonly entity: EntityTarget<T>,
    private readonly label: string,
  ) {}

  get repo() {
    return this.txHost.tx.getRepository(this.entity);
  }

  where(scope: TenantScope, extra: FindOptionsWhere<T> = {}): FindOptionsWhere<T> {
    return { ...extra, appId: scope.appId, mode: scope.mode } as FindOptionsWhere<T>;
  }

  /** Plain SQL for this entity's hot paths (see EntitySql). */
  get sql(): EntitySql<T> {
    return (this.compiled ??= EntitySql.of(this.txHost.tx.connection, this.entity));
  }

  private compiled?: EntitySql<T>;

  /** One record of the partition by id: the hottest read of the API (every GET by id). */
  async findOne(scope: TenantScope, id: number): Promise<T | null> {
    if (!Number.isSafeInteger(id) || id < 1) return null;
    const sql = this.sql;
    const [row] = await sql.rows(
      this.txHost.tx,
      `SELECT ${sql.selectList} FROM ${sql.table} WHERE id = $1 AND app_id = $2 AND mode = $3`,
      [id, scope.appId, scope.mode],
      `${sql.table.replace(/"/g, '')}_by_id`,
    );
    return row ?? null;
  }

  async get(scope: TenantScope, id: number): Promise<T> {
    const row = await this.findOne(scope, id);
    if (!row) throw AppError.notFound(this.label);
    return row;
  }

  /** Reads and row-locks (FOR UPDATE) inside the current transaction. */
  async getForUpdate(scope: TenantScope, id: number): Promise<T> {
    const row =
      Number.isSafeInteger(id) && id > 0
        ? await this.repo.findOne({
            where: this.where(scope, { id } as FindOptionsWhere<T>),
            lock: { mode: 'pessimistic_write' },
          })
        : null;
    if (!row) throw AppError.notFound(this.label);
    return row;
  }
}
