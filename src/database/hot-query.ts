import type { Pool, PoolClient, QueryConfig, QueryResult } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';

import { PREPARED_STATEMENTS } from './data-source-options';

/**
 * A data source's pg pool (where statements outside a transaction go): the
 * PostgreSQL driver's `master`, a public field of TypeORM's `PostgresDriver`
 * ("Pool for master database"). TypeORM's root does not export that class,
 * so the field is named here by its shape rather than through a deep import
 * of `typeorm/driver/postgres/PostgresDriver`.
 */
export const poolOf = (source: DataSource): Pool => {
  const pool = (source.driver as { master?: Pool }).master;
  if (!pool) throw new Error(`poolOf: the data source's driver has no pg pool (not initialized?)`);
  return pool;
};

/**
 * Whether statements given a name are sent as named prepared statements on
 * this data source (its options' `extra`, see `dataSourceOptions`): not
 * behind a pooler that hands each transaction another server connection
 * and cannot keep a client's named statements (PgBouncer before 1.21).
 */
export function preparedStatementsOn(source: DataSource): boolean {
  const extra = (source.options as { extra?: Record<string, unknown> }).extra;
  return extra?.[PREPARED_STATEMENTS] !== false;
}

/**
 * One statement sent straight to pg: inside a transaction on the
 * transaction's connection (its query runner's `connect()`, which answers
 * the connection it already holds), outside one on TypeORM's pool. Skips
 * what TypeORM does around every query (a query runner per call outside a
 * transaction, before/after query events, logging hooks), which profiling
 * put at tens of microseconds per statement. Same SQL, same connection,
 * same transaction; errors are pg's own (codes as TypeORM's `driverError`
 * carries them). Repositories reach it through `sql()` (sql.ts).
 */
export async function runStatement(em: EntityManager, query: QueryConfig): Promise<QueryResult> {
  const runner = em.queryRunner;
  // Unnamed where the data source says so (DB_PREPARED_STATEMENTS=false): same text, same values.
  if (query.name !== undefined && !preparedStatementsOn(em.connection))
    query = { text: query.text, values: query.values };
  try {
    return runner?.isTransactionActive
      ? await ((await runner.connect()) as PoolClient).query(query)
      : await poolOf(em.connection).query(query);
  } catch (err) {
    // As pg does for its own promises: a stack that leads back to the caller, not the socket.
    if (err instanceof Error) Error.captureStackTrace(err);
    throw err;
  }
}
