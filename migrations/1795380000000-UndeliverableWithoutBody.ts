import { MigrationInterface, QueryRunner } from 'typeorm';

/** An UNDELIVERABLE delivery keeps no copy of the event body (nothing will ever send it). */
export class UndeliverableWithoutBody1795380000000 implements MigrationInterface {
  name = 'UndeliverableWithoutBody1795380000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE webhook_deliveries SET body = '' WHERE status = 'UNDELIVERABLE' AND body <> ''`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_retention_idx ON webhook_deliveries (mode, created_at)`,
    );
    await q.query(`CREATE INDEX events_retention_idx ON events (mode, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX events_retention_idx`);
    await q.query(`DROP INDEX webhook_deliveries_retention_idx`);
  }
}
