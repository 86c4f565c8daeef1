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
  const target =
    runner?.isTransactionActive && runner.databaseConnection
      ? runner.databaseConnection
      : poolOf(em.connection);
  // Text and values as two arguments when unnamed: pg copies a config
  // object property by property (descriptors and all) before every query.
  const result = name
    ? await target.query({ name, text, values: params } satisfies QueryConfig)
    : await target.query(text, params);
  return result.rows as R[];
}
