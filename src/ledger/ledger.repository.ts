import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { Mode } from '../common/http/request-context';
import type { TenantScope } from '../database/tenant';
import type { LedgerKind, Posting } from './ledger-postings';

export interface AccountBalance {
  account: string;
  debitMinor: number;
  creditMinor: number;
}

/** Every query of ledger_transactions and ledger_entries (insert and read only: they are append-only). */
@Injectable()
export class LedgerRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /**
   * One transaction with its entries, or nothing when this movement
   * (kind + source) is already posted. Whether it was posted now.
   */
  async insert(
    scope: TenantScope,
    kind: LedgerKind,
    sourceId: string,
    occurredAt: Date,
    postings: Posting[],
  ): Promise<boolean> {
    const rows = (await this.txHost.tx.query(
      `WITH t AS (
         INSERT INTO ledger_transactions (app_id, mode, kind, source_id, occurred_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (app_id, mode, kind, source_id) DO NOTHING
         RETURNING id)
       INSERT INTO ledger_entries (transaction_id, app_id, mode, account, debit_minor, credit_minor)
       SELECT t.id, $1, $2, e.account, e.debit, e.credit
         FROM t, unnest($6::text[], $7::bigint[], $8::bigint[]) AS e (account, debit, credit)
       RETURNING transaction_id`,
      [
        scope.appId,
        scope.mode,
        kind,
        sourceId,
        occurredAt,
        postings.map((p) => p.account),
        postings.map((p) => p.debitMinor),
        postings.map((p) => p.creditMinor),
      ],
    )) as unknown[];
    return rows.length > 0;
  }

  /** Sums per account, optionally for one app and/or mode. */
  async balances(filter: { appId?: number; mode?: Mode }): Promise<AccountBalance[]> {
    const rows = (await this.txHost.tx.query(
      `SELECT account, COALESCE(sum(debit_minor), 0)::bigint AS debit, COALESCE(sum(credit_minor), 0)::bigint AS credit
         FROM ledger_entries
        WHERE ($1::bigint IS NULL OR app_id = $1) AND ($2::mode IS NULL OR mode = $2)
        GROUP BY account ORDER BY account`,
      [filter.appId ?? null, filter.mode ?? null],
    )) as { account: string; debit: number; credit: number }[];
    return rows.map((r) => ({
      account: r.account,
      debitMinor: Number(r.debit),
      creditMinor: Number(r.credit),
    }));
  }

  /** Ids of ledger transactions (in the filter) whose entries do not balance; none, if the books are sound. */
  async unbalancedTransactions(filter: { appId?: number; mode?: Mode }): Promise<number[]> {
    const rows = (await this.txHost.tx.query(
      `SELECT transaction_id FROM ledger_entries
        WHERE ($1::bigint IS NULL OR app_id = $1) AND ($2::mode IS NULL OR mode = $2)
        GROUP BY transaction_id HAVING sum(debit_minor) <> sum(credit_minor)
        LIMIT 10`,
      [filter.appId ?? null, filter.mode ?? null],
    )) as { transaction_id: number }[];
    return rows.map((r) => Number(r.transaction_id));
  }
}
