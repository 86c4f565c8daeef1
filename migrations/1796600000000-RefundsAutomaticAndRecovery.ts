import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds the service opens by itself (the excess of a capture, decisions
 * section 13) are marked `automatic`: they need no approval and do not count
 * toward the cumulative approval threshold of the app's own refunds. The
 * index serves the re-check, which now also finds refunds opened or approved
 * but never sent (a crash or a 5xx between the steps).
 */
export class RefundsAutomaticAndRecovery1796600000000 implements MigrationInterface {
  name = 'RefundsAutomaticAndRecovery1796600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refunds ADD COLUMN automatic boolean NOT NULL DEFAULT false`);
    await q.query(
      `CREATE INDEX refunds_pending_idx ON refunds (created_at) WHERE status = 'PENDING'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS refunds_pending_idx`);
    await q.query(`ALTER TABLE refunds DROP COLUMN automatic`);
  }
}
