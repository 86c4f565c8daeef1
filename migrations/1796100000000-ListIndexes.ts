import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes that serve list orders exactly (newest first, id as the
 * tie-breaker): operators' unfiltered invoice and payment searches, and
 * deliveries by partition (its old index lacked the id, so every page
 * re-sorted ties).
 */
export class ListIndexes1796100000000 implements MigrationInterface {
  name = 'ListIndexes1796100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX invoices_recent_idx ON invoices (created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX payments_recent_idx ON payments (created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX webhook_deliveries_partition_idx ON webhook_deliveries (app_id, mode, created_at DESC, id DESC)`,
    );
    await q.query(`DROP INDEX webhook_deliveries_app_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX webhook_deliveries_app_idx ON webhook_deliveries (app_id, mode, created_at DESC)`,
    );
    await q.query(
      `DROP INDEX webhook_deliveries_partition_idx, payments_recent_idx, invoices_recent_idx`,
    );
  }
}
