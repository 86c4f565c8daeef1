import type { EntityManager } from 'typeorm';

/** Tables whose rows are counted per app and mode in `list_counts` (migration ListSortsAndCounts). */
export type CountedTable = 'payments' | 'events' | 'webhook_deliveries';

/**
 * The exact number of rows of `table` in one partition, or across every app
 * (and mode) when they are not given: the sum of the partition's counter
 * shards, which triggers keep in the inserting and deleting transactions.
 * Reads a handful of rows whatever the table's size.
 */
export async function countedRows(
  tx: EntityManager,
  table: CountedTable,
  where: { appId?: number; mode?: string },
): Promise<number> {
  const rows = (await tx.query(
    `SELECT coalesce(sum(n), 0)::text AS n FROM list_counts
      WHERE table_name = $1 AND ($2::bigint IS NULL OR app_id = $2) AND ($3::mode IS NULL OR mode = $3::mode)`,
    [table, where.appId ?? null, where.mode ?? null],
  )) as { n: string }[];
  return Number(rows[0].n);
}
