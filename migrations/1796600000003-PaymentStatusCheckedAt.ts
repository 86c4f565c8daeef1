import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the pay button last asked the gateway about a checkout: each earlier
 * checkout of an invoice is asked at most once per 30 seconds, however many
 * clicks (and replicas) there are (decisions section 14).
 */
export class PaymentStatusCheckedAt1796600000003 implements MigrationInterface {
  name = 'PaymentStatusCheckedAt1796600000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payments ADD COLUMN status_checked_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payments DROP COLUMN status_checked_at`);
  }
}
