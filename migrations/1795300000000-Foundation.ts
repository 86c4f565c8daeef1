import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Foundation: admin users and sessions, login lock-out, apps with their
 * settings and per-mode credentials, idempotency keys, the events outbox and
 * benefits (the first tenant resource).
 */
export class Foundation1795300000000 implements MigrationInterface {
  name = 'Foundation1795300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TYPE mode AS ENUM ('TEST', 'LIVE')`);

    await q.query(`
      CREATE TABLE admin_users (
        id             BIGSERIAL PRIMARY KEY,
        email          TEXT NOT NULL,
        name           TEXT NOT NULL,
        password_hash  TEXT NOT NULL,
        status         TEXT NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED')),
        super_admin    BOOLEAN NOT NULL DEFAULT FALSE,
        permissions    TEXT[] NOT NULL DEFAULT '{}',
        last_login_at  TIMESTAMPTZ,
        created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at     TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX admin_users_email_key ON admin_users (lower(email))`);

    await q.query(`
      CREATE TABLE admin_sessions (
        id          BIGSERIAL PRIMARY KEY,
        user_id     BIGINT NOT NULL REFERENCES admin_users (id),
        token_id    TEXT NOT NULL UNIQUE,
        expires_at  TIMESTAMPTZ NOT NULL,
        revoked_at  TIMESTAMPTZ,
        created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX admin_sessions_user_idx ON admin_sessions (user_id) WHERE revoked_at IS NULL`,
    );

    await q.query(`
      CREATE TABLE login_failures (
        id          BIGSERIAL PRIMARY KEY,
        email_key   TEXT NOT NULL,
        failed_at   TIMESTAMPTZ NOT NULL
      )`);
    await q.query(
      `CREATE INDEX login_failures_email_idx ON login_failures (email_key, failed_at DESC)`,
    );

    await q.query(`
      CREATE TABLE apps (
        id                               BIGSERIAL PRIMARY KEY,
        name                             TEXT NOT NULL,
        status                           TEXT NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'SUSPENDED')),
        logo_url                         TEXT,
        refund_approval_threshold_minor  BIGINT NOT NULL DEFAULT 1000000 CHECK (refund_approval_threshold_minor >= 0),
        receipts_enabled                 BOOLEAN NOT NULL DEFAULT TRUE,
        dunning_enabled                  BOOLEAN NOT NULL DEFAULT TRUE,
        min_amount_minor                 BIGINT NOT NULL DEFAULT 1000 CHECK (min_amount_minor >= 100),
        max_amount_minor                 BIGINT NOT NULL DEFAULT 50000000 CHECK (max_amount_minor <= 1000000000),
        payment_expiry_minutes           INTEGER NOT NULL DEFAULT 30 CHECK (payment_expiry_minutes BETWEEN 1 AND 1440),
        return_url_allowlist             TEXT NOT NULL DEFAULT '',
        default_success_url              TEXT,
        default_fail_url                 TEXT,
        default_cancel_url               TEXT,
        webhook_url                      TEXT,
        created_at                       TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at                       TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK (min_amount_minor <= max_amount_minor)
      )`);
    await q.query(
      `COMMENT ON COLUMN apps.webhook_url IS 'Legacy single webhook URL; superseded by webhook endpoints'`,
    );

    await q.query(`
      CREATE TABLE app_credentials (
        id           BIGSERIAL PRIMARY KEY,
        app_id       BIGINT NOT NULL REFERENCES apps (id),
        mode         mode NOT NULL,
        api_key      TEXT NOT NULL UNIQUE,
        secret_hash  TEXT NOT NULL,
        created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
        rotated_at   TIMESTAMPTZ,
        UNIQUE (app_id, mode)
      )`);

    await q.query(`
      CREATE TABLE idempotency_keys (
        id            BIGSERIAL PRIMARY KEY,
        app_id        BIGINT NOT NULL REFERENCES apps (id),
        mode          mode NOT NULL,
        key           TEXT NOT NULL,
        method        TEXT NOT NULL,
        path          TEXT NOT NULL,
        request_hash  TEXT NOT NULL,
        status_code   INTEGER NOT NULL,
        error_code    TEXT,
        response_body TEXT NOT NULL,
        created_at    TIMESTAMPTZ NOT NULL,
        expires_at    TIMESTAMPTZ NOT NULL,
        UNIQUE (app_id, mode, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at)`);

    await q.query(`
      CREATE TABLE events (
        id          BIGSERIAL PRIMARY KEY,
        app_id      BIGINT NOT NULL REFERENCES apps (id),
        mode        mode NOT NULL,
        type        TEXT NOT NULL,
        data        JSONB NOT NULL,
        created_at  TIMESTAMPTZ NOT NULL
      )`);
    await q.query(
      `CREATE INDEX events_app_mode_idx ON events (app_id, mode, created_at DESC, id DESC)`,
    );

    await q.query(`
      CREATE TABLE benefits (
        id          BIGSERIAL PRIMARY KEY,
        app_id      BIGINT NOT NULL REFERENCES apps (id),
        mode        mode NOT NULL,
        lookup_key  TEXT NOT NULL,
        name        TEXT NOT NULL,
        metadata    TEXT,
        active      BOOLEAN NOT NULL DEFAULT FALSE,
        created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (app_id, mode, lookup_key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'benefits',
      'events',
      'idempotency_keys',
      'app_credentials',
      'apps',
      'login_failures',
      'admin_sessions',
      'admin_users',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
    await q.query(`DROP TYPE IF EXISTS mode`);
  }
}
