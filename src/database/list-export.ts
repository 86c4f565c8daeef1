import type { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';

import { sql } from './sql';

/**
 * Reading a whole filtered list for an export (the CSV of the invoice,
 * payment and refund lists): a bounded count first, then the rows in
 * keyset batches. Repositories build the filtered query; these only read it.
 */

/**
 * How many rows the query selects, counting at most `limit + 1` (an export
 * over its limit is refused without counting every row of a large partition).
 */
export async function countUpTo<T extends ObjectLiteral>(
  em: EntityManager,
  qb: SelectQueryBuilder<T>,
  alias: string,
  limit: number,
): Promise<number> {
  const [text, params] = qb
    .clone()
    .select(`${alias}.id`, 'id')
    .orderBy()
    .limit(limit + 1)
    .getQueryAndParameters();
  const row = await sql(em).one<{ n: number }>(
    `SELECT count(*)::int AS n FROM (${text}) counted`,
    params,
  );
  return Number(row?.n ?? 0);
}

/**
 * Every row the query selects, newest first (`createdAt`, then `id`), read
 * in batches of `size` by keyset: each batch is one short statement, so no
 * transaction, cursor or connection is held while a slow client reads.
 */
export async function* keysetBatches<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  size: number,
): AsyncGenerator<T[]> {
  // created_at in epoch microseconds (a JS Date keeps milliseconds only), and the id.
  let after: { us: string; id: number } | null = null;
  for (;;) {
    const batch = qb.clone();
    if (after)
      batch.andWhere(
        `(${alias}.createdAt, ${alias}.id) < (TIMESTAMPTZ 'epoch' + :afterUs * INTERVAL '1 microsecond', :afterId)`,
        { afterUs: after.us, afterId: after.id },
      );
    batch
      .orderBy(`${alias}.createdAt`, 'DESC')
      .addOrderBy(`${alias}.id`, 'DESC')
      .take(size)
      .addSelect(`(extract(epoch from ${alias}.createdAt) * 1000000)::bigint`, 'cursor_us');
    const { entities, raw } = await batch.getRawAndEntities();
    if (entities.length === 0) return;
    const last = entities[entities.length - 1];
    const lastRaw = (raw as Record<string, unknown>[]).find(
      (r) => String(r[`${alias}_id`]) === String(last.id),
    );
    if (lastRaw?.cursor_us === undefined) throw new Error('keysetBatches: no position read');
    after = { us: String(lastRaw.cursor_us), id: Number(last.id) };
    yield entities;
    if (entities.length < size) return;
  }
}

/** A filtered list read whole: how many rows (bounded), then the rows in batches. */
export interface ListExport<T> {
  /** How many rows, counting at most `limit + 1`. */
  count(limit: number): Promise<number>;
  /** The rows, newest first, `size` per statement. */
  batches(size: number): AsyncGenerator<T[]>;
}

export function listExport<T extends ObjectLiteral>(
  em: EntityManager,
  qb: SelectQueryBuilder<T>,
  alias: string,
): ListExport<T> {
  return {
    count: (limit) => countUpTo(em, qb, alias, limit),
    batches: (size) => keysetBatches(qb, alias, size),
  };
}
