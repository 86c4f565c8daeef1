import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each app's credentials for a real gateway, per mode, sealed with
 * ENCRYPTION_KEY (AES-256-GCM), and which gateway is the app's default in
 * that mode (at most one).
 */
export class GatewayCredentials1795900000000 implements MigrationInterface {
  name = 'GatewayCredentials1795900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gateway_credentials (
        app_id       BIGINT NOT NULL REFERENCES apps(id),
        mode         mode NOT NULL,
        gateway      TEXT NOT NULL,
        sealed       TEXT NOT NULL,
        is_default   BOOLEAN NOT NULL DEFAULT false,
        updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (app_id, mode, gateway)
      )`);
    await q.query(
      `CREATE UNIQUE INDEX gateway_credentials_one_default ON gateway_credentials (app_id, mode) WHERE is_default`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE gateway_credentials`);
  }
}
