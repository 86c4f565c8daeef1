import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Manual refunds (decisions section 22): a refund on a gateway whose adapter
 * publishes no refund call (Nagad) is opened PENDING with `manual` set; it
 * is never sent to a gateway, and an operator completes it once the money
 * went back outside Joma (`POST /admin/refunds/{id}/complete`). The
 * re-check leaves manual refunds out; its scan of PENDING refunds is the
 * existing `refunds_pending_idx`, and the lists filter no column of their
 * own on it, so no index is added.
 */
export class ManualRefunds1797000010100 implements MigrationInterface {
  name = 'ManualRefunds1797000010100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refunds ADD COLUMN manual boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refunds DROP COLUMN manual`);
  }
}
