import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customer notifications (decisions section 16): the outbox of messages to
 * payers (one row per fact and channel, never two: the unique key), the
 * language and notify flags they are written by, the dunning reminders a
 * subscription has had for its open invoice, and the apps' sealed SMS
 * credentials per mode.
 */
export class CustomerNotifications1796900000000 implements MigrationInterface {
  name = 'CustomerNotifications1796900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE apps ADD COLUMN default_language TEXT NOT NULL DEFAULT 'bn'
      CHECK (default_language IN ('bn', 'en'))`);
    await q.query(`ALTER TABLE invoices
      ADD COLUMN customer_language TEXT CHECK (customer_language IN ('bn', 'en')),
      ADD COLUMN notify_customer BOOLEAN NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE subscriptions
      ADD COLUMN customer_language TEXT CHECK (customer_language IN ('bn', 'en')),
      ADD COLUMN notify_customer BOOLEAN NOT NULL DEFAULT false,
      ADD COLUMN dunning_reminders_sent INTEGER NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE notifications (
        id              BIGSERIAL PRIMARY KEY,
        app_id          BIGINT NOT NULL REFERENCES apps(id),
        mode            mode NOT NULL,
        fact_key        TEXT NOT NULL,
        channel         TEXT NOT NULL CHECK (channel IN ('EMAIL', 'SMS')),
        kind            TEXT NOT NULL CHECK (kind IN ('RECEIPT', 'DUNNING_REMINDER', 'INVOICE', 'TRIAL_ENDING')),
        recipient       TEXT NOT NULL,
        status          TEXT NOT NULL CHECK (status IN ('QUEUED', 'SENT', 'FAILED', 'SKIPPED', 'CAPTURED')),
        invoice_id      BIGINT,
        payment_id      BIGINT,
        subscription_id BIGINT,
        language        TEXT NOT NULL CHECK (language IN ('bn', 'en')),
        subject         TEXT,
        body_text       TEXT NOT NULL,
        body_html       TEXT,
        attempts        INTEGER NOT NULL DEFAULT 0,
        last_error      TEXT,
        next_attempt_at TIMESTAMPTZ,
        sending_since   TIMESTAMPTZ,
        claimed_until   TIMESTAMPTZ,
        created_at      TIMESTAMPTZ NOT NULL,
        sent_at         TIMESTAMPTZ,
        UNIQUE (app_id, mode, fact_key, channel)
      )`);
    await q.query(
      `CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'QUEUED'`,
    );
    await q.query(
      `CREATE INDEX notifications_list ON notifications (app_id, mode, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX notifications_invoice ON notifications (invoice_id) WHERE invoice_id IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE sms_credentials (
        app_id     BIGINT NOT NULL REFERENCES apps(id),
        mode       mode NOT NULL,
        provider   TEXT NOT NULL,
        sealed     TEXT NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (app_id, mode, provider)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sms_credentials`);
    await q.query(`DROP TABLE notifications`);
    await q.query(`ALTER TABLE subscriptions DROP COLUMN customer_language,
      DROP COLUMN notify_customer, DROP COLUMN dunning_reminders_sent`);
    await q.query(
      `ALTER TABLE invoices DROP COLUMN customer_language, DROP COLUMN notify_customer`,
    );
    await q.query(`ALTER TABLE apps DROP COLUMN default_language`);
  }
}
