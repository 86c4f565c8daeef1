import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where each admin account last logged in successfully (decisions section
 * 14): the email lock (50 failures from all addresses) does not refuse an
 * address from which that account logged in within the last 30 days, so a
 * flood from elsewhere cannot lock an admin out of their usual address.
 * Keyed by a hash of the normalised email and the address's throttle key
 * (IPv6 by its /64): no email or address is stored.
 */
export class LoginKnownAddresses1796600000002 implements MigrationInterface {
  name = 'LoginKnownAddresses1796600000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE login_known_addresses (
        key text PRIMARY KEY,
        last_success_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE login_known_addresses`);
  }
}
