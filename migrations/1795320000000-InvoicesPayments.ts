import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customers, invoices (gapless numbers per app and mode, line items, the
 * per-app template, payable tokens), payments and the built-in sandbox
 * gateway's own session store.
 */
export class InvoicesPayments1795320000000 implements MigrationInterface {
  name = 'InvoicesPayments1795320000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE customers (
        id           BIGSERIAL PRIMARY KEY,
        app_id       BIGINT NOT NULL REFERENCES apps (id),
        mode         mode NOT NULL,
        external_id  TEXT NOT NULL,
        name         TEXT,
        email        TEXT,
        phone        TEXT,
        created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (app_id, mode, external_id)
      )`);

    await q.query(`
      CREATE TABLE invoice_templates (
        app_id           BIGINT PRIMARY KEY REFERENCES apps (id),
        logo_url         TEXT,
        company_name     TEXT,
        company_address  TEXT,
        contact_details  TEXT,
        footer_note      TEXT,
        accent_color     TEXT,
        created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at       TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE invoice_counters (
        app_id       BIGINT NOT NULL REFERENCES apps (id),
        mode         mode NOT NULL,
        last_number  BIGINT NOT NULL,
        PRIMARY KEY (app_id, mode)
      )`);

    await q.query(`
      CREATE TABLE invoices (
        id                 BIGSERIAL PRIMARY KEY,
        app_id             BIGINT NOT NULL REFERENCES apps (id),
        mode               mode NOT NULL,
        number             TEXT NOT NULL,
        status             TEXT NOT NULL CHECK (status IN ('ISSUED', 'PARTIALLY_PAID', 'PAID', 'VOID')),
        customer_id        BIGINT NOT NULL REFERENCES customers (id),
        subscription_id    BIGINT,
        price_id           BIGINT,
        total_minor        BIGINT NOT NULL CHECK (total_minor > 0),
        amount_paid_minor  BIGINT NOT NULL DEFAULT 0 CHECK (amount_paid_minor >= 0),
        currency           TEXT NOT NULL DEFAULT 'BDT' CHECK (currency = 'BDT'),
        due_date           DATE NOT NULL,
        issued_at          TIMESTAMPTZ NOT NULL,
        pay_token          TEXT NOT NULL UNIQUE,
        metadata           JSONB,
        voided_at          TIMESTAMPTZ,
        created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (app_id, mode, number)
      )`);
    await q.query(
      `CREATE INDEX invoices_app_mode_created_idx ON invoices (app_id, mode, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX invoices_customer_idx ON invoices (customer_id)`);

    await q.query(`
      CREATE TABLE invoice_line_items (
        id                 BIGSERIAL PRIMARY KEY,
        invoice_id         BIGINT NOT NULL REFERENCES invoices (id),
        position           INTEGER NOT NULL,
        description        TEXT NOT NULL,
        qty                INTEGER NOT NULL CHECK (qty >= 1),
        unit_amount_minor  BIGINT NOT NULL CHECK (unit_amount_minor >= 1),
        line_total_minor   BIGINT NOT NULL,
        UNIQUE (invoice_id, position)
      )`);

    await q.query(`
      CREATE TABLE payments (
        id                      BIGSERIAL PRIMARY KEY,
        app_id                  BIGINT NOT NULL REFERENCES apps (id),
        mode                    mode NOT NULL,
        reference               TEXT NOT NULL UNIQUE,
        status                  TEXT NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED')),
        amount_minor            BIGINT NOT NULL CHECK (amount_minor > 0),
        currency                TEXT NOT NULL DEFAULT 'BDT' CHECK (currency = 'BDT'),
        gateway                 TEXT NOT NULL,
        gateway_session_id      TEXT,
        gateway_txn_id          TEXT,
        payment_method          TEXT,
        payment_method_label    TEXT,
        payment_method_brand    TEXT,
        payment_method_issuer   TEXT,
        payment_method_account  TEXT,
        checkout_url            TEXT,
        success_url             TEXT,
        fail_url                TEXT,
        cancel_url              TEXT,
        customer_id             BIGINT NOT NULL REFERENCES customers (id),
        invoice_id              BIGINT REFERENCES invoices (id),
        description             TEXT,
        metadata                JSONB,
        expires_at              TIMESTAMPTZ NOT NULL,
        succeeded_at            TIMESTAMPTZ,
        created_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at              TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX payments_app_mode_created_idx ON payments (app_id, mode, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX payments_due_expiry_idx ON payments (expires_at) WHERE status = 'PENDING'`,
    );
    await q.query(
      `CREATE INDEX payments_invoice_idx ON payments (invoice_id) WHERE invoice_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX payments_customer_idx ON payments (customer_id, created_at DESC)`);
    await q.query(
      `CREATE UNIQUE INDEX payments_gateway_session_idx ON payments (gateway, gateway_session_id) WHERE gateway_session_id IS NOT NULL`,
    );

    // The sandbox gateway's own records: what a real gateway keeps on its side.
    await q.query(`
      CREATE TABLE sandbox_sessions (
        id                 BIGSERIAL PRIMARY KEY,
        session_id         TEXT NOT NULL UNIQUE,
        payment_reference  TEXT NOT NULL,
        merchant_name      TEXT NOT NULL,
        amount_minor       BIGINT NOT NULL,
        currency           TEXT NOT NULL,
        description        TEXT,
        return_url         TEXT NOT NULL,
        status             TEXT NOT NULL CHECK (status IN ('OPEN', 'CAPTURED', 'FAILED', 'CANCELLED')),
        txn_id             TEXT,
        refunded_minor     BIGINT NOT NULL DEFAULT 0,
        completed_at       TIMESTAMPTZ,
        created_at         TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'sandbox_sessions',
      'payments',
      'invoice_line_items',
      'invoices',
      'invoice_counters',
      'invoice_templates',
      'customers',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
