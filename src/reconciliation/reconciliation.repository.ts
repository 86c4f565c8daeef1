import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { Mode } from '../common/http/request-context';
import { sql } from '../database/sql';

export const EXCEPTION_CLASSES = [
  'amountMismatch',
  'missingInternal',
  'missingInSettlement',
  'deferred',
] as const;
export type ExceptionClass = (typeof EXCEPTION_CLASSES)[number];
/** The classes in the items list's order (byte order, as `COLLATE "C"` sorts them); a cursor keeps the rank. */
export const EXCEPTION_ORDER: readonly ExceptionClass[] = [...EXCEPTION_CLASSES].sort((a, b) =>
  a < b ? -1 : a > b ? 1 : 0,
);

export interface RunCounts {
  matched: number;
  missingInSettlement: number;
  missingInternal: number;
  amountMismatch: number;
  deferred: number;
}

export interface RunRow extends RunCounts {
  id: number;
  appId: number | null;
  mode: Mode | null;
  period: string;
  trigger: 'api' | 'nightly';
  ledgerBalanced: boolean;
  /** FAILED: the run could not be completed (the nightly job records why); its counts are 0. */
  status: 'COMPLETED' | 'FAILED';
  failureReason: string | null;
  createdAt: Date;
}

export interface ItemRow {
  id: number;
  class: ExceptionClass;
  paymentId: number | null;
  gateway: string;
  gatewayTxnId: string | null;
  internalAmountMinor: number | null;
  settlementAmountMinor: number | null;
  appId: number;
  mode: Mode;
}

const RUN_COLUMNS = `id, app_id AS "appId", mode, to_char(period, 'YYYY-MM-DD') AS period, trigger,
  matched, missing_in_settlement AS "missingInSettlement", missing_internal AS "missingInternal",
  amount_mismatch AS "amountMismatch", deferred, ledger_balanced AS "ledgerBalanced", status,
  failure_reason AS "failureReason", created_at AS "createdAt"`;

/**
 * Every query of reconciliation_runs and reconciliation_items. Captures are
 * read through `payment_captures`, the payments feature's published
 * read-only view, so the classification is one set-based statement.
 */
@Injectable()
export class ReconciliationRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async insertRun(fields: {
    appId: number | null;
    mode: Mode | null;
    period: string;
    trigger: 'api' | 'nightly';
  }): Promise<number> {
    const [row] = await sql(this.txHost.tx).rows<{ id: number }>(
      `INSERT INTO reconciliation_runs (app_id, mode, period, trigger, matched, missing_in_settlement, missing_internal, amount_mismatch, deferred, ledger_balanced)
       VALUES ($1, $2, $3, $4, 0, 0, 0, 0, 0, false) RETURNING id`,
      [fields.appId, fields.mode, fields.period, fields.trigger],
    );
    return Number(row.id);
  }

  /** A run that could not be completed: counts 0, ledger not checked (false), and why. */
  async insertFailedRun(
    fields: { appId: number | null; mode: Mode | null; period: string; trigger: 'api' | 'nightly' },
    reason: string,
  ): Promise<number> {
    const [row] = await sql(this.txHost.tx).rows<{ id: number }>(
      `INSERT INTO reconciliation_runs (app_id, mode, period, trigger, matched, missing_in_settlement, missing_internal, amount_mismatch, deferred, ledger_balanced, status, failure_reason)
       VALUES ($1, $2, $3, $4, 0, 0, 0, 0, 0, false, 'FAILED', $5) RETURNING id`,
      [fields.appId, fields.mode, fields.period, fields.trigger, reason],
    );
    return Number(row.id);
  }

  /**
   * Classifies every capture of [start, end) and every settlement line of
   * that window once, matching on (app, mode, gateway, gateway txn id);
   * stores the exceptions of `runId` and returns the counts. Captures in the
   * window's last `deferMs` without a line are deferred (the gateway's
   * cut-off puts them in the next day's file).
   */
  async classify(
    runId: number,
    window: { start: Date; end: Date; deferFrom: Date },
    filter: { appId: number | null; mode: Mode | null },
  ): Promise<RunCounts> {
    const [row] = await sql(this.txHost.tx).rows<RunCounts>(
      `WITH caps AS (
         SELECT c.id, c.app_id, c.mode, c.gateway, c.gateway_txn_id, c.amount_minor, c.captured_at
           FROM payment_captures c
          WHERE c.captured_at >= $2 AND c.captured_at < $3
            AND ($5::bigint IS NULL OR c.app_id = $5) AND ($6::mode IS NULL OR c.mode = $6)),
       lines AS (
         SELECT l.id, l.app_id, l.mode, l.gateway, l.gateway_txn_id, l.amount_minor
           FROM settlement_lines l
          WHERE l.transaction_time >= $2 AND l.transaction_time < $3
            AND ($5::bigint IS NULL OR l.app_id = $5) AND ($6::mode IS NULL OR l.mode = $6)),
       from_caps AS (
         SELECT CASE
                  WHEN l.id IS NULL AND c.captured_at >= $4 THEN 'deferred'
                  WHEN l.id IS NULL THEN 'missingInSettlement'
                  WHEN l.amount_minor = c.amount_minor THEN 'matched'
                  ELSE 'amountMismatch' END AS class,
                c.id AS payment_id, c.gateway, c.gateway_txn_id, c.amount_minor AS internal, l.amount_minor AS settled,
                c.app_id, c.mode
           FROM caps c
           LEFT JOIN settlement_lines l
             ON l.app_id = c.app_id AND l.mode = c.mode AND l.gateway = c.gateway AND l.gateway_txn_id = c.gateway_txn_id),
       from_lines AS (
         SELECT CASE
                  WHEN p.id IS NULL THEN 'missingInternal'
                  WHEN p.amount_minor = l.amount_minor THEN 'matched'
                  ELSE 'amountMismatch' END AS class,
                p.id AS payment_id, l.gateway, l.gateway_txn_id, p.amount_minor AS internal, l.amount_minor AS settled,
                l.app_id, l.mode
           FROM lines l
           LEFT JOIN payment_captures p
             ON p.app_id = l.app_id AND p.mode = l.mode AND p.gateway = l.gateway AND p.gateway_txn_id = l.gateway_txn_id
          -- a line whose capture is in the window was classified with it
          WHERE p.id IS NULL OR p.captured_at < $2 OR p.captured_at >= $3),
       classified AS (SELECT * FROM from_caps UNION ALL SELECT * FROM from_lines),
       items AS (
         INSERT INTO reconciliation_items (run_id, class, payment_id, gateway, gateway_txn_id, internal_amount_minor, settlement_amount_minor, app_id, mode)
         SELECT $1, class, payment_id, gateway, gateway_txn_id, internal, settled, app_id, mode
           FROM classified WHERE class <> 'matched')
       SELECT count(*) FILTER (WHERE class = 'matched')::int AS "matched",
              count(*) FILTER (WHERE class = 'missingInSettlement')::int AS "missingInSettlement",
              count(*) FILTER (WHERE class = 'missingInternal')::int AS "missingInternal",
              count(*) FILTER (WHERE class = 'amountMismatch')::int AS "amountMismatch",
              count(*) FILTER (WHERE class = 'deferred')::int AS "deferred"
         FROM classified`,
      [runId, window.start, window.end, window.deferFrom, filter.appId, filter.mode],
    );
    return row;
  }

  async finishRun(id: number, counts: RunCounts, ledgerBalanced: boolean): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE reconciliation_runs SET matched = $2, missing_in_settlement = $3, missing_internal = $4,
              amount_mismatch = $5, deferred = $6, ledger_balanced = $7 WHERE id = $1`,
      [
        id,
        counts.matched,
        counts.missingInSettlement,
        counts.missingInternal,
        counts.amountMismatch,
        counts.deferred,
        ledgerBalanced,
      ],
    );
  }

  async run(id: number): Promise<RunRow | null> {
    if (!Number.isSafeInteger(id) || id < 1) return null;
    const [row] = await sql(this.txHost.tx).rows<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM reconciliation_runs WHERE id = $1`,
      [id],
    );
    return row ?? null;
  }

  /** Newest first; after `cursor` (created_at in microseconds, id) when given. One row more than `size` tells there is more. */
  async runs(
    page: number,
    size: number,
    period?: string,
    cursor?: { us: string; id: number },
    appIds?: number[],
  ): Promise<{ rows: (RunRow & { cursorUs: string })[]; total: number }> {
    const rows = await sql(this.txHost.tx).rows<RunRow & { cursorUs: string }>(
      `SELECT ${RUN_COLUMNS}, (extract(epoch from created_at) * 1000000)::bigint::text AS "cursorUs"
         FROM reconciliation_runs
        WHERE ($3::date IS NULL OR period = $3)
          AND ($4::bigint IS NULL OR (created_at, id) < (TIMESTAMPTZ 'epoch' + $4::bigint * INTERVAL '1 microsecond', $5::bigint))
          AND ($6::bigint[] IS NULL OR app_id = ANY($6))
        ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`,
      [
        size + 1,
        cursor ? 0 : page * size,
        period ?? null,
        cursor?.us ?? null,
        cursor?.id ?? null,
        appIds ?? null,
      ],
    );
    const [count] = await sql(this.txHost.tx).rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM reconciliation_runs
        WHERE ($1::date IS NULL OR period = $1) AND ($2::bigint[] IS NULL OR app_id = ANY($2))`,
      [period ?? null, appIds ?? null],
    );
    return { rows, total: count.n };
  }

  /** By class, then id; after `cursor` (the class's rank in EXCEPTION_ORDER, id) when given. One row more than `size` tells there is more. */
  async items(
    runId: number,
    page: number,
    size: number,
    cls?: ExceptionClass,
    cursor?: { cls: ExceptionClass; id: number },
  ): Promise<{ rows: ItemRow[]; total: number }> {
    const rows = await sql(this.txHost.tx).rows<ItemRow>(
      `SELECT id, class, payment_id AS "paymentId", gateway, gateway_txn_id AS "gatewayTxnId",
              internal_amount_minor AS "internalAmountMinor", settlement_amount_minor AS "settlementAmountMinor",
              app_id AS "appId", mode
         FROM reconciliation_items
        WHERE run_id = $1 AND ($4::text IS NULL OR class = $4)
          AND ($5::text IS NULL OR (class COLLATE "C", id) > ($5::text COLLATE "C", $6::bigint))
        ORDER BY class COLLATE "C", id LIMIT $2 OFFSET $3`,
      [
        runId,
        size + 1,
        cursor ? 0 : page * size,
        cls ?? null,
        cursor?.cls ?? null,
        cursor?.id ?? null,
      ],
    );
    const [count] = await sql(this.txHost.tx).rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM reconciliation_items WHERE run_id = $1 AND ($2::text IS NULL OR class = $2)`,
      [runId, cls ?? null],
    );
    return { rows, total: count.n };
  }

  /** Claims the nightly run of `period` for this replica; false if another already did. */
  async claimNightly(period: string): Promise<boolean> {
    const rows = await sql(this.txHost.tx).rows<unknown>(
      `INSERT INTO nightly_reconciliations (period) VALUES ($1) ON CONFLICT DO NOTHING RETURNING period`,
      [period],
    );
    return rows.length > 0;
  }
}
