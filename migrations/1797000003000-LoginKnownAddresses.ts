import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Known addresses belong to an account (decisions section 14, amendment
 * "Section 14, logins"): each row now names its account by the hash of the
 * normalised email (the email counter's key), so that an account keeps at
 * most its 10 most recent known addresses. Rows made before this have no
 * account (NULL): they keep working until their 30 days are over and take
 * their account the next time that address logs in.
 */
export class LoginKnownAddresses1797000003000 implements MigrationInterface {
  name = 'LoginKnownAddresses1797000003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE login_known_addresses ADD COLUMN account_key text`);
    await q.query(
      `CREATE INDEX login_known_addresses_account_idx
         ON login_known_addresses (account_key, last_success_at DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX login_known_addresses_account_idx`);
    await q.query(`ALTER TABLE login_known_addresses DROP COLUMN account_key`);
  }
}
