import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The invoice template is per app and mode: a TEST key must not be able to
 * change what LIVE customers see on their pay pages. Each existing template
 * is copied to both modes.
 */
export class TemplatePerMode1795350000000 implements MigrationInterface {
  name = 'TemplatePerMode1795350000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoice_templates ADD COLUMN mode mode NOT NULL DEFAULT 'TEST'`);
    await q.query(`ALTER TABLE invoice_templates ALTER COLUMN mode DROP DEFAULT`);
    await q.query(`ALTER TABLE invoice_templates DROP CONSTRAINT invoice_templates_pkey`);
    await q.query(`ALTER TABLE invoice_templates ADD PRIMARY KEY (app_id, mode)`);
    await q.query(`
      INSERT INTO invoice_templates (app_id, mode, logo_url, company_name, company_address,
                                     contact_details, footer_note, accent_color, created_at, updated_at)
      SELECT app_id, 'LIVE', logo_url, company_name, company_address,
             contact_details, footer_note, accent_color, created_at, updated_at
        FROM invoice_templates WHERE mode = 'TEST'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM invoice_templates WHERE mode = 'LIVE'`);
    await q.query(`ALTER TABLE invoice_templates DROP CONSTRAINT invoice_templates_pkey`);
    await q.query(`ALTER TABLE invoice_templates DROP COLUMN mode`);
    await q.query(`ALTER TABLE invoice_templates ADD PRIMARY KEY (app_id)`);
  }
}
