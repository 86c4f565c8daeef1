import { MigrationInterface, QueryRunner } from 'typeorm';

/** Re-sends are limited per endpoint (10 a minute): the counter lives on the endpoint row. */
export class ResendLimits1795390000000 implements MigrationInterface {
  name = 'ResendLimits1795390000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN resend_window_start TIMESTAMPTZ,
        ADD COLUMN resend_count INTEGER NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints DROP COLUMN resend_window_start, DROP COLUMN resend_count`);
  }
}
