import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Gateway diagnostics (decisions sections 11 and 19): when the gateway last
 * answered a call for the app and mode, beside the last error, so an
 * operator can tell a stale error from a current one.
 */
export class GatewayLastSuccess1797000001000 implements MigrationInterface {
  name = 'GatewayLastSuccess1797000001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE gateway_credentials ADD COLUMN last_success_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE gateway_credentials DROP COLUMN last_success_at`);
  }
}
