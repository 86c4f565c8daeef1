import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Gateway calls leave the database transaction, so two things need a lease:
 * - idempotency keys are committed as STARTED (with a lease and a recovery
 *   point) before the work and FINISHED with the response after it; a retry
 *   after a crash resumes from the recovery point instead of repeating work;
 * - the expiry sweep claims due payments with a lease, asks their gateways
 *   with no transaction open, and applies each answer in a short one.
 */
export class MoneyCoreRecoveryPoints1795400000000 implements MigrationInterface {
  name = 'MoneyCoreRecoveryPoints1795400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE idempotency_keys
        ADD COLUMN state TEXT NOT NULL DEFAULT 'FINISHED' CHECK (state IN ('STARTED', 'FINISHED')),
        ADD COLUMN owner TEXT,
        ADD COLUMN locked_until TIMESTAMPTZ,
        ADD COLUMN recovery_point TEXT,
        ADD COLUMN recovery JSONB,
        ALTER COLUMN status_code DROP NOT NULL,
        ALTER COLUMN response_body DROP NOT NULL,
        ADD CONSTRAINT idempotency_keys_finished_has_response
          CHECK (state = 'STARTED' OR (status_code IS NOT NULL AND response_body IS NOT NULL))`);
    await q.query(`ALTER TABLE idempotency_keys ALTER COLUMN state DROP DEFAULT`);
    await q.query(`ALTER TABLE payments ADD COLUMN sweep_claimed_until TIMESTAMPTZ`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payments DROP COLUMN sweep_claimed_until`);
    await q.query(`DELETE FROM idempotency_keys WHERE state = 'STARTED'`);
    await q.query(`
      ALTER TABLE idempotency_keys
        DROP CONSTRAINT idempotency_keys_finished_has_response,
        DROP COLUMN state, DROP COLUMN owner, DROP COLUMN locked_until,
        DROP COLUMN recovery_point, DROP COLUMN recovery,
        ALTER COLUMN status_code SET NOT NULL,
        ALTER COLUMN response_body SET NOT NULL`);
  }
}
