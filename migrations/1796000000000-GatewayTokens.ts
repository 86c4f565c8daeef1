import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Access tokens some gateways issue (bKash: an id_token valid for an hour,
 * with a refresh token), per app and mode, sealed with ENCRYPTION_KEY and
 * shared by every replica, so they are not granted again per process.
 */
export class GatewayTokens1796000000000 implements MigrationInterface {
  name = 'GatewayTokens1796000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gateway_tokens (
        app_id      BIGINT NOT NULL REFERENCES apps(id),
        mode        mode NOT NULL,
        gateway     TEXT NOT NULL,
        sealed      TEXT NOT NULL,
        expires_at  TIMESTAMPTZ NOT NULL,
        updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (app_id, mode, gateway)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE gateway_tokens`);
  }
}
