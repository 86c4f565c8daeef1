import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A gateway's diagnostics outlive its credentials (decisions section 19):
 * removing an app's credentials clears them (`sealed` NULL) but keeps the
 * row's last error and last success, and an error of an app with no
 * credentials (`... has no TEST credentials`) is recorded on such a row.
 */
export class GatewayDiagnosticsKept1797000008000 implements MigrationInterface {
  name = 'GatewayDiagnosticsKept1797000008000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE gateway_credentials ALTER COLUMN sealed DROP NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM gateway_credentials WHERE sealed IS NULL`);
    await q.query(`ALTER TABLE gateway_credentials ALTER COLUMN sealed SET NOT NULL`);
  }
}
