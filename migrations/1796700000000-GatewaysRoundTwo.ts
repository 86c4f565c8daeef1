import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Gateways, round 2 (decisions sections 7, 11, 13):
 * - refunds reach a gateway at most once: how many times one was sent, and
 *   when it may next be asked about (a pause) and which trip to the gateway
 *   holds it (a claim);
 *   the sandbox gateway remembers which refund references it applied, so a
 *   status query can answer "no such refund";
 * - payments carry SSLCommerz's risk verdict and the gateway's own reason
 *   for a failure;
 * - wallet and card numbers are masked, those already stored included
 *   (`01*******89`: the first two and last two characters);
 * - each app's gateway setup remembers the last error the gateway gave;
 * - gateway tokens carry a lease: one grant at a time per app and mode.
 */
export class GatewaysRoundTwo1796700000000 implements MigrationInterface {
  name = 'GatewaysRoundTwo1796700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refunds
      ADD COLUMN send_attempts integer NOT NULL DEFAULT 0,
      ADD COLUMN recheck_at timestamptz,
      ADD COLUMN claimed_until timestamptz`);
    await q.query(
      `UPDATE refunds SET send_attempts = 1 WHERE submitted_at IS NOT NULL AND send_attempts = 0`,
    );
    await q.query(
      `ALTER TABLE sandbox_sessions ADD COLUMN refund_references text[] NOT NULL DEFAULT '{}'`,
    );
    await q.query(`ALTER TABLE payments
      ADD COLUMN risk_level text NOT NULL DEFAULT 'NORMAL' CHECK (risk_level IN ('NORMAL', 'HIGH')),
      ADD COLUMN failure_reason text`);
    await q.query(
      `CREATE INDEX payments_high_risk_idx ON payments (app_id, mode, id) WHERE risk_level = 'HIGH'`,
    );
    await q.query(`CREATE FUNCTION joma_mask_account(v text) RETURNS text
      LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN v IS NULL THEN NULL
                    WHEN length(v) <= 4 THEN repeat('*', length(v))
                    ELSE left(v, 2) || repeat('*', length(v) - 4) || right(v, 2) END $$`);
    await q.query(`UPDATE payments
        SET payment_method_label = replace(payment_method_label, payment_method_account, joma_mask_account(payment_method_account)),
            payment_method_account = joma_mask_account(payment_method_account)
      WHERE payment_method_account IS NOT NULL AND payment_method_account ~ '[0-9]{5,}'`);
    await q.query(`DROP FUNCTION joma_mask_account(text)`);
    await q.query(`ALTER TABLE gateway_credentials
      ADD COLUMN last_error text,
      ADD COLUMN last_error_at timestamptz`);
    // One grant at a time per app and mode across replicas: the holder of the lease asks the gateway.
    await q.query(`ALTER TABLE gateway_tokens ADD COLUMN lease_until timestamptz`);
    await q.query(`ALTER TABLE gateway_tokens ALTER COLUMN sealed DROP NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM gateway_tokens WHERE sealed IS NULL`);
    await q.query(`ALTER TABLE gateway_tokens ALTER COLUMN sealed SET NOT NULL`);
    await q.query(`ALTER TABLE gateway_tokens DROP COLUMN lease_until`);
    await q.query(
      `ALTER TABLE gateway_credentials DROP COLUMN last_error, DROP COLUMN last_error_at`,
    );
    await q.query(`DROP INDEX payments_high_risk_idx`);
    await q.query(`ALTER TABLE payments DROP COLUMN risk_level, DROP COLUMN failure_reason`);
    await q.query(`ALTER TABLE sandbox_sessions DROP COLUMN refund_references`);
    await q.query(
      `ALTER TABLE refunds DROP COLUMN send_attempts, DROP COLUMN recheck_at, DROP COLUMN claimed_until`,
    );
  }
}
