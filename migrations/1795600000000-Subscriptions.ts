import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscriptions and entitlements. The renewal job reads subscriptions by
 * `next_action_at` (partial index: only those with something scheduled), so
 * it scales with the number due, not the number that exist.
 */
export class Subscriptions1795600000000 implements MigrationInterface {
  name = 'Subscriptions1795600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE subscriptions (
        id                     BIGSERIAL PRIMARY KEY,
        app_id                 BIGINT NOT NULL REFERENCES apps(id),
        mode                   mode NOT NULL,
        customer_id            BIGINT NOT NULL REFERENCES customers(id),
        price_id               BIGINT NOT NULL REFERENCES prices(id),
        product_id             BIGINT NOT NULL REFERENCES products(id),
        status                 TEXT NOT NULL CHECK (status IN ('INCOMPLETE', 'TRIALING', 'ACTIVE', 'PAST_DUE', 'PAUSED', 'CANCELED')),
        product_name           TEXT NOT NULL,
        amount_minor           BIGINT NOT NULL CHECK (amount_minor > 0),
        currency               TEXT NOT NULL,
        interval               TEXT NOT NULL CHECK (interval IN ('DAY', 'WEEK', 'MONTH', 'YEAR')),
        interval_count         INTEGER NOT NULL CHECK (interval_count > 0),
        start_date             DATE NOT NULL,
        trial_end_date         DATE,
        trial_will_end_sent    BOOLEAN NOT NULL DEFAULT false,
        billing_anchor         DATE,
        period_index           INTEGER NOT NULL DEFAULT 0,
        current_period_start   DATE,
        next_billing_date      DATE,
        first_invoice_paid     BOOLEAN NOT NULL DEFAULT false,
        open_invoice_id        BIGINT,
        open_invoice_due_date  DATE,
        past_due_since         TIMESTAMPTZ,
        cancel_at_period_end   BOOLEAN NOT NULL DEFAULT false,
        canceled_at            TIMESTAMPTZ,
        clock_offset_ms        BIGINT NOT NULL DEFAULT 0,
        next_action_at         TIMESTAMPTZ,
        created_at             TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at             TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX subscriptions_due ON subscriptions (next_action_at) WHERE next_action_at IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX subscriptions_by_partition ON subscriptions (app_id, mode, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX subscriptions_by_customer ON subscriptions (customer_id)`);
    await q.query(
      `ALTER TABLE invoices ADD CONSTRAINT invoices_subscription_fk FOREIGN KEY (subscription_id) REFERENCES subscriptions(id)`,
    );
    await q.query(
      `CREATE INDEX invoices_by_subscription ON invoices (subscription_id) WHERE subscription_id IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE entitlements (
        id               BIGSERIAL PRIMARY KEY,
        app_id           BIGINT NOT NULL REFERENCES apps(id),
        mode             mode NOT NULL,
        customer_id      BIGINT NOT NULL REFERENCES customers(id),
        benefit_id       BIGINT NOT NULL REFERENCES benefits(id),
        subscription_id  BIGINT REFERENCES subscriptions(id),
        invoice_id       BIGINT REFERENCES invoices(id),
        granted_at       TIMESTAMPTZ NOT NULL,
        revoked_at       TIMESTAMPTZ,
        CHECK ((subscription_id IS NULL) <> (invoice_id IS NULL)),
        CHECK (revoked_at IS NULL OR revoked_at >= granted_at)
      )`);
    await q.query(
      `CREATE UNIQUE INDEX entitlements_one_live_grant_per_subscription ON entitlements (subscription_id, benefit_id)
        WHERE revoked_at IS NULL AND subscription_id IS NOT NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX entitlements_one_grant_per_invoice ON entitlements (invoice_id, benefit_id) WHERE invoice_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX entitlements_held ON entitlements (customer_id, granted_at) WHERE revoked_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE entitlements`);
    await q.query(`DROP INDEX invoices_by_subscription`);
    await q.query(`ALTER TABLE invoices DROP CONSTRAINT invoices_subscription_fk`);
    await q.query(`DROP TABLE subscriptions`);
  }
}
