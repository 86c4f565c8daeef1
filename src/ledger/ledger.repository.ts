import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { Mode } from '../common/http/request-context';
import { exactMinor } from '../common/money/exact-sum';
import { sql } from '../database/sql';
import type { TenantScope } from '../database/tenant';
import type { LedgerKind, Posting } from './ledger-postings';

export interface AccountBalance {
  account: string;
  debitMinor: number;
  creditMinor: number;
}

/** One app's exact sums of one account (NUMERIC in PostgreSQL, BigInt here). */
export interface AppAccountSums {
  appId: number;
  account: string;
  debit: bigint;
  credit: bigint;
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
    // Ids first, so every entry names its transaction without a join (planner
    // estimates on CTE results are poor; a join there went quadratic).
    const ids = (
      await sql(this.txHost.tx).rows<{ id: number }>(
        `SELECT nextval(pg_get_serial_sequence('ledger_transactions', 'id')) AS id FROM generate_series(1, $1)`,
        [items.length],
      )
    ).map((r) => Number(r.id));
    const tx: number[] = [];
    const accounts: string[] = [];
    const debits: number[] = [];
    const credits: number[] = [];
    items.forEach((item, i) => {
      for (const p of item.postings) {
        tx.push(ids[i]);
        accounts.push(p.account);
        debits.push(p.debitMinor);
        credits.push(p.creditMinor);
      }
    });
    const rows = await sql(this.txHost.tx).rows<{ source_id: string }>(
      `WITH t AS (
         INSERT INTO ledger_transactions (id, app_id, mode, kind, source_id, occurred_at)
         SELECT i.id, $1, $2, $3, i.source_id, i.occurred_at
           FROM unnest($4::bigint[], $5::text[], $6::timestamptz[]) AS i (id, source_id, occurred_at)
         ON CONFLICT (app_id, mode, kind, source_id) DO NOTHING
         RETURNING id, source_id),
       e AS (
         INSERT INTO ledger_entries (transaction_id, app_id, mode, account, debit_minor, credit_minor)
         SELECT p.tx, $1, $2, p.account, p.debit, p.credit
           FROM unnest($7::bigint[], $8::text[], $9::bigint[], $10::bigint[]) AS p (tx, account, debit, credit)
          WHERE p.tx IN (SELECT id FROM t))
       SELECT source_id FROM t`,
      [
        scope.appId,
        scope.mode,
        kind,
        ids,
        items.map((i) => i.sourceId),
        items.map((i) => i.occurredAt),
        tx,
        accounts,
        debits,
        credits,
      ],
    );
    return rows.map((r) => r.source_id);
  }

  /**
   * Exact sums per app and account, optionally for one app and/or mode:
   * NUMERIC read as text (a sum may pass 2^53; the service decides what
   * can be answered).
   */
  async balancesByApp(filter: {
    appId?: number;
    mode?: Mode;
    appIds?: number[];
  }): Promise<AppAccountSums[]> {
    const rows = await sql(this.txHost.tx).rows<{
      app_id: number;
      account: string;
      debit: string;
      credit: string;
    }>(
      `SELECT app_id, account, COALESCE(sum(debit_minor), 0)::text AS debit, COALESCE(sum(credit_minor), 0)::text AS credit
         FROM ledger_entries
        WHERE ($1::bigint IS NULL OR app_id = $1) AND ($2::mode IS NULL OR mode = $2)
          AND ($3::bigint[] IS NULL OR app_id = ANY($3))
        GROUP BY app_id, account ORDER BY app_id, account`,
      [filter.appId ?? null, filter.mode ?? null, filter.appIds ?? null],
    );
    return rows.map((r) => ({
      appId: Number(r.app_id),
      account: r.account,
      debit: exactMinor(r.debit),
      credit: exactMinor(r.credit),
    }));
  }

  /**
   * Per Asia/Dhaka day in [from, to): what the partition's refunds that
   * succeeded that day gave back (their `refund_succeeded` postings, by the
   * time each was posted: in the transaction that made the refund
   * SUCCEEDED), exactly (NUMERIC read as text). Days without any are absent.
   */
  async refundedPerDhakaDay(
    scope: TenantScope,
    from: Date,
    to: Date,
  ): Promise<{ date: string; refunded: bigint }[]> {
    // ledger_refunds_succeeded_by_time finds the range; each transaction's entries by their index.
    const rows = await sql(this.txHost.tx).rows<{ date: string; total: string }>(
      `SELECT to_char(t.occurred_at AT TIME ZONE 'Asia/Dhaka', 'YYYY-MM-DD') AS date,
              sum(e.credit_minor)::text AS total
         FROM ledger_transactions t
         JOIN ledger_entries e ON e.transaction_id = t.id AND e.account = 'gateway_clearing'
        WHERE t.kind = 'refund_succeeded' AND t.app_id = $1 AND t.mode = $2
          AND t.occurred_at >= $3 AND t.occurred_at < $4
        GROUP BY 1`,
      [scope.appId, scope.mode, from, to],
    );
    return rows.map((r) => ({ date: r.date, refunded: exactMinor(r.total) }));
  }

  /** Whether debits equal credits over the filter, compared exactly in SQL (NUMERIC sums of any size). */
  async debitsEqualCredits(filter: { appId?: number; mode?: Mode }): Promise<boolean> {
    const row = await sql(this.txHost.tx).one<{ balanced: boolean }>(
      `SELECT COALESCE(sum(debit_minor), 0) = COALESCE(sum(credit_minor), 0) AS balanced
         FROM ledger_entries
        WHERE ($1::bigint IS NULL OR app_id = $1) AND ($2::mode IS NULL OR mode = $2)`,
      [filter.appId ?? null, filter.mode ?? null],
    );
    return row?.balanced ?? true;
  }

  /** Ids of ledger transactions (in the filter) whose entries do not balance; none, if the books are sound. */
  async unbalancedTransactions(filter: { appId?: number; mode?: Mode }): Promise<number[]> {
    const rows = await sql(this.txHost.tx).rows<{ transaction_id: number }>(
      `SELECT transaction_id FROM ledger_entries
        WHERE ($1::bigint IS NULL OR app_id = $1) AND ($2::mode IS NULL OR mode = $2)
        GROUP BY transaction_id HAVING sum(debit_minor) <> sum(credit_minor)
        LIMIT 10`,
      [filter.appId ?? null, filter.mode ?? null],
    );
    return rows.map((r) => Number(r.transaction_id));
  }
}
