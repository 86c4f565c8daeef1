import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A capture that lands just before a cancel or a void is never lost
 * (decisions section 13, amended 2026-12-02): a CANCELLED payment whose
 * checkout the gateway did not confirm closed is asked about until
 * `checkout_open_until` (72 hours after the cancel), like a PENDING one.
 */
export class CancelledCheckoutRecheck1797000004000 implements MigrationInterface {
  name = 'CancelledCheckoutRecheck1797000004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payments ADD COLUMN checkout_open_until TIMESTAMPTZ`);
    await q.query(
      `CREATE INDEX payments_checkout_open_idx ON payments (checkout_open_until) WHERE checkout_open_until IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX payments_checkout_open_idx`);
    await q.query(`ALTER TABLE payments DROP COLUMN checkout_open_until`);
  }
}
