import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lists at a million rows (issue #18):
 *
 * - every documented sort of a partition's list gets an index
 *   `(app_id, mode, field, id)` in the order the list asks for (the
 *   newest-first `created_at` ones exist); subscriptions' nullable
 *   `next_billing_date` gets one per direction, so nulls stay last either way;
 * - `list_counts` holds exact row counts of payments, events and webhook
 *   deliveries per app and mode, kept by statement-level triggers in the
 *   inserting or deleting transaction itself. Each partition has up to 8 rows
 *   (shard = the session's backend pid mod 8, summed on read), so concurrent
 *   writers of one partition do not queue on one counter row.
 *   (Invoices need none: their gapless number counter is their count.)
 */
const COUNTED = ['payments', 'events', 'webhook_deliveries'] as const;

const SORT_INDEXES: [string, string][] = [
  ['invoices_by_issued', 'invoices (app_id, mode, issued_at DESC, id DESC)'],
  ['invoices_by_due', 'invoices (app_id, mode, due_date DESC, id DESC)'],
  ['invoices_by_total', 'invoices (app_id, mode, total_minor DESC, id DESC)'],
  ['invoices_by_id', 'invoices (app_id, mode, id DESC)'],
  ['payments_by_amount', 'payments (app_id, mode, amount_minor DESC, id DESC)'],
  ['payments_by_expiry', 'payments (app_id, mode, expires_at DESC, id DESC)'],
  ['payments_by_id', 'payments (app_id, mode, id DESC)'],
  ['events_by_id', 'events (app_id, mode, id DESC)'],
  ['webhook_deliveries_by_id', 'webhook_deliveries (app_id, mode, id DESC)'],
  ['subscriptions_by_id', 'subscriptions (app_id, mode, id DESC)'],
  [
    'subscriptions_by_billing_asc',
    'subscriptions (app_id, mode, next_billing_date ASC NULLS LAST, id ASC)',
  ],
  [
    'subscriptions_by_billing_desc',
    'subscriptions (app_id, mode, next_billing_date DESC NULLS LAST, id DESC)',
  ],
  ['refunds_by_id', 'refunds (app_id, mode, id DESC)'],
  // Operators' searches across apps, newest first.
  ['webhook_deliveries_recent', 'webhook_deliveries (created_at DESC, id DESC)'],
  ['subscriptions_recent', 'subscriptions (created_at DESC, id DESC)'],
  ['refunds_recent', 'refunds (created_at DESC, id DESC)'],
];

export class ListSortsAndCounts1796200000000 implements MigrationInterface {
  name = 'ListSortsAndCounts1796200000000';

  async up(q: QueryRunner): Promise<void> {
    for (const [name, on] of SORT_INDEXES) await q.query(`CREATE INDEX ${name} ON ${on}`);

    await q.query(`
      CREATE TABLE list_counts (
        table_name  TEXT NOT NULL,
        app_id      BIGINT NOT NULL,
        mode        mode NOT NULL,
        shard       SMALLINT NOT NULL,
        n           BIGINT NOT NULL,
        PRIMARY KEY (table_name, app_id, mode, shard)
      )`);
    // One function for inserts and deletes: +count(new rows) or -count(old rows).
    // Groups are taken in key order so two statements never lock counter rows
    // in opposite orders.
    await q.query(`
      CREATE FUNCTION list_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_counts (table_name, app_id, mode, shard, n)
          SELECT TG_TABLE_NAME, app_id, mode, pg_backend_pid() % 8, count(*)
            FROM new_rows GROUP BY app_id, mode ORDER BY app_id, mode
          ON CONFLICT (table_name, app_id, mode, shard) DO UPDATE SET n = list_counts.n + EXCLUDED.n;
        ELSE
          INSERT INTO list_counts (table_name, app_id, mode, shard, n)
          SELECT TG_TABLE_NAME, app_id, mode, pg_backend_pid() % 8, -count(*)
            FROM old_rows GROUP BY app_id, mode ORDER BY app_id, mode
          ON CONFLICT (table_name, app_id, mode, shard) DO UPDATE SET n = list_counts.n + EXCLUDED.n;
        END IF;
        RETURN NULL;
      END $$`);
    for (const table of COUNTED) {
      await q.query(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`);
      await q.query(`
        CREATE TRIGGER ${table}_counted_ins AFTER INSERT ON ${table}
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply()`);
      await q.query(`
        CREATE TRIGGER ${table}_counted_del AFTER DELETE ON ${table}
          REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply()`);
      await q.query(`
        INSERT INTO list_counts (table_name, app_id, mode, shard, n)
        SELECT '${table}', app_id, mode, 0, count(*) FROM ${table} GROUP BY app_id, mode`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of COUNTED)
      await q.query(
        `DROP TRIGGER ${table}_counted_ins ON ${table}; DROP TRIGGER ${table}_counted_del ON ${table}`,
      );
    await q.query(`DROP FUNCTION list_counts_apply()`);
    await q.query(`DROP TABLE list_counts`);
    for (const [name] of SORT_INDEXES) await q.query(`DROP INDEX ${name}`);
  }
}
