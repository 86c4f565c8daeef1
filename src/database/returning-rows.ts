import type { EntityManager } from 'typeorm';

/**
 * Rows of an UPDATE/DELETE ... RETURNING through TypeORM's postgres driver,
 * which answers those commands with [rows, affectedCount].
 */
export async function returningRows<T>(
  em: EntityManager,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const result = (await em.query(sql, params)) as unknown;
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}
