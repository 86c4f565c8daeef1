import type { Pool, PoolClient, QueryConfig } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

/** A data source's pg pool (where statements outside a transaction go). */
export const poolOf = (source: DataSource): Pool =>
  (source.driver as PostgresDriver).master as Pool;

/**
 * Rows of one statement (a SELECT, or any statement with RETURNING), sent
 * straight to pg: inside a
 * transaction on the transaction's connection, outside one on TypeORM's
 * pool. Skips what TypeORM does around every query (a query runner per
 * call outside a transaction, before/after query events, logging hooks),
 * which profiling put at tens of microseconds per statement. Same SQL, same
 * connection, same transaction; errors are pg's own (codes as TypeORM's
 * `driverError` carries them).
 *
 * `name` makes it a prepared statement, parsed and planned once per
 * connection: only for statements whose text never varies.
 */
export async function hotRows<R>(
  em: EntityManager,
  text: string,
  params: unknown[],
  name?: string,
): Promise<R[]> {
  const runner = em.queryRunner as
    (PostgresQueryRunner & { databaseConnection?: PoolClient }) | undefined;
  const query: QueryConfig = name ? { text, values: params, name } : { text, values: params };
  try {
    const result =
      runner?.isTransactionActive && runner.databaseConnection
        ? await runner.databaseConnection.query(query)
        : await poolOf(em.connection).query(query);
    return result.rows as R[];
  } catch (err) {
    // As pg does for its own promises: a stack that leads back to the caller, not the socket.
    if (err instanceof Error) Error.captureStackTrace(err);
    throw err;
  }
}
