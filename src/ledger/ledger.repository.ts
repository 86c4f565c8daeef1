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
   * Ledger transactions with their entries, in one statement (the database
   * checks each balances at the end of it). A movement (kind + source)
   * already posted is skipped. The source ids posted now.
   */
  async insertMany(
    scope: TenantScope,
    kind: LedgerKind,
    items: { sourceId: string; occurredAt: Date; postings: Posting[] }[],
  ): Promise<string[]> {
    if (items.length === 0) return [];
    // The entries as flat arrays (item index, account, debit, credit): no JSON to build or parse.
    const idx: number[] = [];
    const accounts: string[] = [];
    const debits: number[] = [];
    const credits: number[] = [];
    items.forEach((item, i) => {
      for (const p of item.postings) {
        idx.push(i + 1);
        accounts.push(p.account);
        debits.push(p.debitMinor);
        credits.push(p.creditMinor);
      }
    });
    const rows = (await this.txHost.tx.query(
      `WITH input AS (
         SELECT * FROM unnest($4::text[], $5::timestamptz[]) WITH ORDINALITY AS i (source_id, occurred_at, n)),
       t AS (
         INSERT INTO ledger_transactions (app_id, mode, kind, source_id, occurred_at)
         SELECT $1, $2, $3, source_id, occurred_at FROM input
         ON CONFLICT (app_id, mode, kind, source_id) DO NOTHING
         RETURNING id, source_id),
       e AS (
         INSERT INTO ledger_entries (transaction_id, app_id, mode, account, debit_minor, credit_minor)
         SELECT t.id, $1, $2, p.account, p.debit, p.credit
           FROM t JOIN input i ON i.source_id = t.source_id
           JOIN unnest($6::int[], $7::text[], $8::bigint[], $9::bigint[]) AS p (n, account, debit, credit)
             ON p.n = i.n)
       SELECT source_id FROM t`,
      [
        scope.appId,
        scope.mode,
        kind,
        items.map((i) => i.sourceId),
        items.map((i) => i.occurredAt),
        idx,
        accounts,
        debits,
        credits,
      ],
    )) as { source_id: string }[];
    return rows.map((r) => r.source_id);
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
