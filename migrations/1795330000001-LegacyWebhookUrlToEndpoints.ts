import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The older single `apps.webhook_url` becomes one endpoint per mode,
 * subscribed to every event, unvalidated. A migration cannot
 * encrypt, so the secret is left empty and sealed by the dispatcher before
 * the first delivery; the app obtains it by rotating. A LIVE http URL is kept
 * as it is: its deliveries park at the first attempt with LIVE_REQUIRES_HTTPS.
 * Re-running converts only apps not converted yet; `apps.webhook_url` is kept.
 */
export class LegacyWebhookUrlToEndpoints1795330000001 implements MigrationInterface {
  name = 'LegacyWebhookUrlToEndpoints1795330000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      INSERT INTO webhook_endpoints (app_id, mode, url, description, events, enabled, secret_ciphertext, legacy, created_at, updated_at)
      SELECT a.id, m.mode, btrim(a.webhook_url), 'Carried over from the legacy single webhook URL', ARRAY['*'], TRUE, NULL, TRUE, now(), now()
        FROM apps a
       CROSS JOIN (VALUES ('TEST'::mode), ('LIVE'::mode)) AS m (mode)
       WHERE a.webhook_url IS NOT NULL AND btrim(a.webhook_url) <> ''
         AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.app_id = a.id AND e.mode = m.mode AND e.legacy)
       ORDER BY a.id, m.mode`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DELETE FROM webhook_delivery_attempts WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE legacy)`,
    );
    await q.query(
      `DELETE FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE legacy)`,
    );
    await q.query(`DELETE FROM webhook_endpoints WHERE legacy`);
  }
}
