import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { EntitySql } from '../database/entity-sql';
import { sql } from '../database/sql';
import type { TenantScope } from '../database/tenant';
import { Entitlement } from './entitlement.entity';

/** Every query of the entitlements table (grants are revoked, never deleted). */
@Injectable()
export class EntitlementsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private get entitlements(): EntitySql<Entitlement> {
    return EntitySql.of(this.txHost.tx.connection, Entitlement);
  }

  /**
   * Inserts grants; one already live for the same subscription (or made by
   * the same invoice) and benefit is left as it is. The benefit ids granted now.
   */
  async grant(rows: Omit<Entitlement, 'id' | 'revokedAt'>[]): Promise<number[]> {
    if (rows.length === 0) return [];
    const res = await sql(this.txHost.tx).rows<{ benefit_id: number }>(
      `INSERT INTO entitlements (app_id, mode, customer_id, benefit_id, subscription_id, invoice_id, granted_at)
       SELECT * FROM unnest($1::bigint[], $2::mode[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::timestamptz[])
       ON CONFLICT DO NOTHING
       RETURNING benefit_id`,
      [
        rows.map((r) => r.appId),
        rows.map((r) => r.mode),
        rows.map((r) => r.customerId),
        rows.map((r) => r.benefitId),
        rows.map((r) => r.subscriptionId),
        rows.map((r) => r.invoiceId),
        rows.map((r) => r.grantedAt),
      ],
    );
    return res.map((r) => Number(r.benefit_id));
  }

  /** Ends every live grant of the subscription; the benefit ids revoked. */
  async revokeAllOfSubscription(subscriptionId: number, at: Date): Promise<number[]> {
    const res = await sql(this.txHost.tx).rows<{ benefit_id: number }>(
      `UPDATE entitlements SET revoked_at = GREATEST($2::timestamptz, granted_at)
        WHERE subscription_id = $1 AND revoked_at IS NULL
       RETURNING benefit_id`,
      [subscriptionId, at],
    );
    return res.map((r) => Number(r.benefit_id));
  }

  /** What the customer holds now, oldest grant first. */
  liveOf(scope: TenantScope, customerId: number): Promise<Entitlement[]> {
    const sql = this.entitlements;
    return sql.rows(
      this.txHost.tx,
      `SELECT ${sql.selectList} FROM ${sql.table}
        WHERE app_id = $1 AND mode = $2 AND customer_id = $3 AND revoked_at IS NULL
        ORDER BY granted_at ASC, id ASC`,
      [scope.appId, scope.mode, customerId],
    );
  }
}
