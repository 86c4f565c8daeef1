import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A reconciliation run that could not be completed is recorded, not lost
 * (decisions section 14, "sums"): the nightly job stores a FAILED run with
 * its reason instead of leaving its claimed period without a run. Existing
 * runs are COMPLETED.
 */
export class ReconciliationRunStatus1797000002500 implements MigrationInterface {
  name = 'ReconciliationRunStatus1797000002500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE reconciliation_runs
         ADD COLUMN status TEXT NOT NULL DEFAULT 'COMPLETED' CHECK (status IN ('COMPLETED', 'FAILED')),
         ADD COLUMN failure_reason TEXT`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE reconciliation_runs DROP COLUMN status, DROP COLUMN failure_reason`);
  }
}
