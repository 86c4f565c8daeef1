import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Gateway token calls back off when the gateway is failing (decisions
 * section 19): per app, mode and gateway, shared by replicas, how many
 * token calls failed in a row and until when none is made.
 */
export class GatewayTokenBackoff1797000000500 implements MigrationInterface {
  name = 'GatewayTokenBackoff1797000000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE gateway_tokens
      ADD COLUMN failures INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
      ADD COLUMN backoff_until TIMESTAMPTZ`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE gateway_tokens DROP COLUMN failures, DROP COLUMN backoff_until`);
  }
}
