import type { EntityManager } from 'typeorm';

import { runStatement } from './hot-query';

/**
 * The one raw-SQL helper (docs/architecture.md, "Writing SQL"): a `sql`
 * repository writes every statement with it, an `entity` repository every
 * statement but its plain entity loads and saves (TypeORM's Repository
 * API): CTEs, `unnest` batches, `ON CONFLICT ... RETURNING`, locks with
 * SKIP LOCKED, aggregates, hot paths. Statements run on the
 * current transaction's connection (the `EntityManager` of
 * `TransactionHost.tx`), or on the pool outside one; parameters are always
 * bound (`$1`...), never spliced into the text.
 *
 *   const due = await sql(this.txHost.tx).rows<{ id: number }>('SELECT id ...', [now]);
 *   const changed = await sql(this.txHost.tx).run('UPDATE ...', [id]);
 */
export interface Sql {
  /** The rows of a SELECT, or of a statement with RETURNING. */
  rows<R>(text: string, params?: unknown[]): Promise<R[]>;
  /** The first row of such a statement, or undefined. */
  one<R>(text: string, params?: unknown[]): Promise<R | undefined>;
  /** A statement without result rows: how many rows it changed. */
  run(text: string, params?: unknown[]): Promise<number>;
  /**
   * `rows` as a prepared statement, parsed and planned once per
   * connection under `name`: only for hot statements whose text never varies.
   */
  prepared<R>(name: string, text: string, params: unknown[]): Promise<R[]>;
}

export function sql(em: EntityManager): Sql {
  return {
    rows: async <R>(text: string, params: unknown[] = []) =>
      (await runStatement(em, { text, values: params })).rows as R[],
    one: async <R>(text: string, params: unknown[] = []) =>
      (await runStatement(em, { text, values: params })).rows[0] as R | undefined,
    run: async (text: string, params: unknown[] = []) =>
      (await runStatement(em, { text, values: params })).rowCount ?? 0,
    prepared: async <R>(name: string, text: string, params: unknown[]) =>
      (await runStatement(em, { text, values: params, name })).rows as R[],
  };
}
