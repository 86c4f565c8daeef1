import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { exactMinor } from '../common/money/exact-sum';
import { sql } from '../database/sql';
import type { TenantScope } from '../database/tenant';
import type { Rejection, SettlementCsvLine } from './settlement-csv';

/** What one chunk of lines added: how many were new, their sums and latest time (null when none). */
export interface InsertedChunk {
  count: number;
  amountMinor: number;
  feeMinor: number;
  latest: Date | null;
}

/** Every query of settlement_imports and settlement_lines. */
@Injectable()
export class SettlementsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async insertImport(
    scope: TenantScope,
    gateway: string,
    source: 'csv' | 'gateway',
    counts: { lines: number; imported: number; duplicates: number; rejected: Rejection[] },
  ): Promise<number> {
    const [row] = await sql(this.txHost.tx).rows<{ id: number }>(
      `INSERT INTO settlement_imports (app_id, mode, gateway, source, lines, imported, duplicates, rejected)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [
        scope.appId,
        scope.mode,
        gateway,
        source,
        counts.lines,
        counts.imported,
        counts.duplicates,
        JSON.stringify(counts.rejected),
      ],
    );
    return Number(row.id);
  }

  /**
   * Serialises imports of one app and mode until the transaction ends, so
   * two files cannot each pass the settled-total bound and together exceed it.
   */
  async lockPartition(scope: TenantScope): Promise<void> {
    await sql(this.txHost.tx).run(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `settlement-lines:${scope.appId}:${scope.mode}`,
    ]);
  }

  /** The app and mode's settled total (every line's amount), exactly (NUMERIC, read as text). */
  async settledTotal(scope: TenantScope): Promise<bigint> {
    const row = await sql(this.txHost.tx).one<{ total: string }>(
      `SELECT COALESCE(sum(amount_minor), 0)::text AS total FROM settlement_lines WHERE app_id = $1 AND mode = $2`,
      [scope.appId, scope.mode],
    );
    return exactMinor(row?.total);
  }

  async setImportCounts(id: number, imported: number, duplicates: number): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE settlement_imports SET imported = $2, duplicates = $3 WHERE id = $1`,
      [id, imported, duplicates],
    );
  }

  /**
   * Inserts the lines in one statement; one already imported (same app,
   * mode, gateway, txn id) is skipped. PostgreSQL answers with one row, the
   * new lines' count, sums and latest time, not a row per line: a chunk's
   * answer costs the event loop nothing (timestamps go as ISO text too,
   * not as Date objects for pg to format one by one).
   */
  async insertLines(
    scope: TenantScope,
    gateway: string,
    importId: number,
    lines: Omit<SettlementCsvLine, 'line'>[],
  ): Promise<InsertedChunk> {
    if (lines.length === 0) return { count: 0, amountMinor: 0, feeMinor: 0, latest: null };
    const [row] = await sql(this.txHost.tx).rows<{
      count: number;
      amount: string;
      fee: string;
      latest: Date | null;
    }>(
      `WITH inserted AS (
         INSERT INTO settlement_lines (app_id, mode, gateway, gateway_txn_id, amount_minor, fee_minor, currency, transaction_time, settled_on, import_id)
         SELECT $1, $2, $3, l.txn, l.amount, l.fee, l.currency, l.at, l.settled_on, $4
           FROM unnest($5::text[], $6::bigint[], $7::bigint[], $8::text[], $9::timestamptz[], $10::date[])
             AS l (txn, amount, fee, currency, at, settled_on)
         ON CONFLICT (app_id, mode, gateway, gateway_txn_id) DO NOTHING
         RETURNING amount_minor, fee_minor, transaction_time)
       SELECT count(*)::int AS count, COALESCE(sum(amount_minor), 0)::text AS amount,
              COALESCE(sum(fee_minor), 0)::text AS fee, max(transaction_time) AS latest
         FROM inserted`,
      [
        scope.appId,
        scope.mode,
        gateway,
        importId,
        lines.map((l) => l.gatewayTxnId),
        lines.map((l) => l.amountMinor),
        lines.map((l) => l.feeMinor),
        lines.map((l) => l.currency),
        lines.map((l) => l.transactionTime.toISOString()),
        lines.map((l) => l.settledOn),
      ],
    );
    // Exact: MAX_LINE_MINOR keeps a chunk's sums (10,000 lines at most) far below 2^53.
    return {
      count: row.count,
      amountMinor: Number(exactMinor(row.amount)),
      feeMinor: Number(exactMinor(row.fee)),
      latest: row.latest,
    };
  }
}
