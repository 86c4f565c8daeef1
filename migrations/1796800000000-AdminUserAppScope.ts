import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * App-scoped admin users (decisions section 15): `app_ids` lists the apps a
 * merchant's own staff may see and act on; NULL is every app (the users
 * before this change keep seeing everything).
 */
export class AdminUserAppScope1796800000000 implements MigrationInterface {
  name = 'AdminUserAppScope1796800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE admin_users ADD COLUMN app_ids bigint[]`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE admin_users DROP COLUMN app_ids`);
  }
}
