import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Login throttling counters, one row per key (an email and client address
 * pair, an email, a client address; all hashed), counted atomically before
 * any password hashing. They replace the per-email failure rows.
 */
export class LoginThrottles1795360000000 implements MigrationInterface {
  name = 'LoginThrottles1795360000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE login_throttles (
        key           TEXT PRIMARY KEY,
        window_start  TIMESTAMPTZ NOT NULL,
        last_at       TIMESTAMPTZ NOT NULL,
        failures      INTEGER NOT NULL CHECK (failures >= 0)
      )`);
    await q.query(`CREATE INDEX login_throttles_last_idx ON login_throttles (last_at)`);
    await q.query(`DROP TABLE login_failures`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE login_failures (
        id         BIGSERIAL PRIMARY KEY,
        email_key  TEXT NOT NULL,
        failed_at  TIMESTAMPTZ NOT NULL
      )`);
    await q.query(
      `CREATE INDEX login_failures_email_idx ON login_failures (email_key, failed_at DESC)`,
    );
    await q.query(`DROP TABLE login_throttles`);
  }
}
