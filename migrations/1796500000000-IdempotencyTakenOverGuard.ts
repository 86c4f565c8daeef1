import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The stored outcome of an idempotent request is sent without waiting for
 * its answer, and the COMMIT right behind it (src/database/lean-transaction.ts,
 * writeBehind). If another request took the key over meanwhile (this one
 * outlived its lease), the statement itself must fail the transaction, so
 * that nothing of this request commits: it calls this function, which raises
 * SQLSTATE JI409 (IdempotencyRepository.TAKEN_OVER).
 */
export class IdempotencyTakenOverGuard1796500000000 implements MigrationInterface {
  name = 'IdempotencyTakenOverGuard1796500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION joma_idempotency_key_taken_over() RETURNS boolean
      LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        RAISE EXCEPTION 'the idempotency key was taken over by another request'
          USING ERRCODE = 'JI409';
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS joma_idempotency_key_taken_over()`);
  }
}
