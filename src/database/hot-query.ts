import type { Pool, PoolClient, QueryConfig, QueryResult } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

/** A data source's pg pool (where statements outside a transaction go). */
export const poolOf = (source: DataSource): Pool =>
  (source.driver as PostgresDriver).master as Pool;

/**
 * One statement sent straight to pg: inside a transaction on the
 * transaction's connection, outside one on TypeORM's pool. Skips what
 * TypeORM does around every query (a query runner per call outside a
 * transaction, before/after query events, logging hooks), which profiling
 * put at tens of microseconds per statement. Same SQL, same connection,
 * same transaction; errors are pg's own (codes as TypeORM's `driverError`
 * carries them). Repositories reach it through `sql()` (sql.ts).
 */
export async function runStatement(em: EntityManager, query: QueryConfig): Promise<QueryResult> {
  const runner = em.queryRunner as
    (PostgresQueryRunner & { databaseConnection?: PoolClient }) | undefined;
  try {
    return runner?.isTransactionActive && runner.databaseConnection
      ? await runner.databaseConnection.query(query)
      : await poolOf(em.connection).query(query);
  } catch (err) {
    // As pg does for its own promises: a stack that leads back to the caller, not the socket.
    if (err instanceof Error) Error.captureStackTrace(err);
    throw err;
  }
}
