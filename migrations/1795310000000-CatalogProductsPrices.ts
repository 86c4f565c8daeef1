import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalog: products, their prices and the benefits attached to them.
 * Every row carries app_id + mode, and the composite foreign keys
 * (x_id, app_id, mode) make it impossible for a price or an attachment to
 * point at a record of another app or of the other mode.
 */
export class CatalogProductsPrices1795310000000 implements MigrationInterface {
  name = 'CatalogProductsPrices1795310000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE products (
        id           BIGSERIAL PRIMARY KEY,
        app_id       BIGINT NOT NULL REFERENCES apps (id),
        mode         mode NOT NULL,
        name         TEXT NOT NULL,
        description  TEXT,
        status       TEXT NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'ACTIVE', 'ARCHIVED')),
        created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (id, app_id, mode)
      )`);
    await q.query(
      `CREATE INDEX products_app_mode_idx ON products (app_id, mode, created_at DESC, id DESC)`,
    );

    await q.query(`
      CREATE TABLE prices (
        id              BIGSERIAL PRIMARY KEY,
        app_id          BIGINT NOT NULL,
        mode            mode NOT NULL,
        product_id      BIGINT NOT NULL,
        type            TEXT NOT NULL CHECK (type IN ('ONE_TIME', 'RECURRING')),
        amount_minor    BIGINT NOT NULL CHECK (amount_minor BETWEEN 1 AND 9007199254740991),
        currency        TEXT NOT NULL DEFAULT 'BDT' CHECK (currency = 'BDT'),
        interval        TEXT CHECK (interval IN ('DAY', 'WEEK', 'MONTH', 'YEAR')),
        interval_count  INTEGER CHECK (interval_count >= 1),
        trial_days      INTEGER CHECK (trial_days BETWEEN 0 AND 730),
        active          BOOLEAN NOT NULL DEFAULT TRUE,
        created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
        FOREIGN KEY (product_id, app_id, mode) REFERENCES products (id, app_id, mode),
        CHECK (
          (type = 'ONE_TIME' AND interval IS NULL AND interval_count IS NULL AND trial_days IS NULL)
          OR (type = 'RECURRING' AND interval IS NOT NULL AND interval_count IS NOT NULL AND trial_days IS NOT NULL)
        )
      )`);
    await q.query(`CREATE INDEX prices_product_idx ON prices (product_id, created_at, id)`);

    // Lets product_benefits reference a benefit together with its partition.
    await q.query(
      `ALTER TABLE benefits ADD CONSTRAINT benefits_id_app_mode_key UNIQUE (id, app_id, mode)`,
    );

    await q.query(`
      CREATE TABLE product_benefits (
        id          BIGSERIAL PRIMARY KEY,
        app_id      BIGINT NOT NULL,
        mode        mode NOT NULL,
        product_id  BIGINT NOT NULL,
        benefit_id  BIGINT NOT NULL,
        created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
        FOREIGN KEY (product_id, app_id, mode) REFERENCES products (id, app_id, mode),
        FOREIGN KEY (benefit_id, app_id, mode) REFERENCES benefits (id, app_id, mode),
        CONSTRAINT product_benefits_product_benefit_key UNIQUE (product_id, benefit_id)
      )`);
    await q.query(`CREATE INDEX product_benefits_benefit_idx ON product_benefits (benefit_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS product_benefits`);
    await q.query(`ALTER TABLE benefits DROP CONSTRAINT IF EXISTS benefits_id_app_mode_key`);
    await q.query(`DROP TABLE IF EXISTS prices`);
    await q.query(`DROP TABLE IF EXISTS products`);
  }
}
