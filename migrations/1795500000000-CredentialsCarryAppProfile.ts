import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The app key check reads one table: each credential row carries its app's
 * name and status, written by the apps feature in the same transaction as
 * any change to them (auth no longer joins the apps table it does not own).
 */
export class CredentialsCarryAppProfile1795500000000 implements MigrationInterface {
  name = 'CredentialsCarryAppProfile1795500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE app_credentials ADD COLUMN app_name TEXT, ADD COLUMN app_status TEXT`,
    );
    await q.query(
      `UPDATE app_credentials c SET app_name = a.name, app_status = a.status FROM apps a WHERE a.id = c.app_id`,
    );
    await q.query(
      `ALTER TABLE app_credentials ALTER COLUMN app_name SET NOT NULL, ALTER COLUMN app_status SET NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE app_credentials DROP COLUMN app_name, DROP COLUMN app_status`);
  }
}
