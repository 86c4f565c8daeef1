import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook delivery: endpoints (per app and mode), deliveries (one per event
 * and endpoint, with its fixed body and retry state), the attempt log, and a
 * fan-out marker on the events outbox plus a NOTIFY on insert so workers wake
 * up as soon as an event commits (they still poll: NOTIFY is only a hint).
 */
export class WebhookDelivery1795330000000 implements MigrationInterface {
  name = 'WebhookDelivery1795330000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id                 BIGSERIAL PRIMARY KEY,
        app_id             BIGINT NOT NULL REFERENCES apps (id),
        mode               mode NOT NULL,
        url                TEXT NOT NULL,
        description        TEXT,
        events             TEXT[] NOT NULL CHECK (cardinality(events) >= 1),
        enabled            BOOLEAN NOT NULL DEFAULT TRUE,
        secret_ciphertext  TEXT,
        secret_rotated_at  TIMESTAMPTZ,
        legacy             BOOLEAN NOT NULL DEFAULT FALSE,
        created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
        deleted_at         TIMESTAMPTZ
      )`);
    await q.query(
      `COMMENT ON COLUMN webhook_endpoints.secret_ciphertext IS 'AES-256-GCM sealed with ENCRYPTION_KEY; NULL only for a legacy endpoint until its first delivery seals one'`,
    );
    await q.query(
      `CREATE INDEX webhook_endpoints_app_mode_idx ON webhook_endpoints (app_id, mode) WHERE deleted_at IS NULL`,
    );

    await q.query(`ALTER TABLE events ADD COLUMN fanned_out_at TIMESTAMPTZ`);
    await q.query(
      `CREATE INDEX events_fanout_pending_idx ON events (id) WHERE fanned_out_at IS NULL`,
    );
    await q.query(`
      CREATE FUNCTION joma_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('joma_events', '');
        RETURN NULL;
      END $$`);
    await q.query(
      `CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION joma_notify_events()`,
    );

    await q.query(`
      CREATE TABLE webhook_deliveries (
        id                BIGSERIAL PRIMARY KEY,
        event_id          BIGINT NOT NULL REFERENCES events (id),
        endpoint_id       BIGINT REFERENCES webhook_endpoints (id),
        app_id            BIGINT NOT NULL REFERENCES apps (id),
        mode              mode NOT NULL,
        event_type        TEXT NOT NULL,
        body              TEXT NOT NULL,
        status            TEXT NOT NULL CHECK (status IN ('PENDING', 'RETRYING', 'DELIVERED', 'PARKED', 'UNDELIVERABLE')),
        attempts          INTEGER NOT NULL DEFAULT 0,
        cycle_attempts    INTEGER NOT NULL DEFAULT 0,
        next_attempt_at   TIMESTAMPTZ,
        locked_until      TIMESTAMPTZ,
        locked_by         TEXT,
        last_attempt_at   TIMESTAMPTZ,
        last_status_code  INTEGER,
        last_error        TEXT,
        delivered_at      TIMESTAMPTZ,
        created_at        TIMESTAMPTZ NOT NULL,
        updated_at        TIMESTAMPTZ NOT NULL,
        CHECK ((endpoint_id IS NULL) = (status = 'UNDELIVERABLE')),
        CHECK (status NOT IN ('PENDING', 'RETRYING') OR next_attempt_at IS NOT NULL)
      )`);
    await q.query(
      `CREATE UNIQUE INDEX webhook_deliveries_event_endpoint_key ON webhook_deliveries (event_id, endpoint_id)`,
    );
    await q.query(
      `CREATE UNIQUE INDEX webhook_deliveries_event_unrouted_key ON webhook_deliveries (event_id) WHERE endpoint_id IS NULL`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status IN ('PENDING', 'RETRYING')`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, status, created_at DESC)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_app_idx ON webhook_deliveries (app_id, mode, created_at DESC)`,
    );

    await q.query(`
      CREATE TABLE webhook_delivery_attempts (
        id                BIGSERIAL PRIMARY KEY,
        delivery_id       BIGINT NOT NULL REFERENCES webhook_deliveries (id),
        endpoint_id       BIGINT NOT NULL REFERENCES webhook_endpoints (id),
        attempt_number    INTEGER NOT NULL,
        url               TEXT NOT NULL,
        target_address    TEXT,
        signed_timestamp  BIGINT,
        started_at        TIMESTAMPTZ NOT NULL,
        duration_ms       INTEGER NOT NULL,
        status_code       INTEGER,
        response_excerpt  TEXT,
        error             TEXT,
        worker            TEXT
      )`);
    await q.query(
      `CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS webhook_delivery_attempts`);
    await q.query(`DROP TABLE IF EXISTS webhook_deliveries`);
    await q.query(`DROP TRIGGER IF EXISTS events_notify ON events`);
    await q.query(`DROP FUNCTION IF EXISTS joma_notify_events()`);
    await q.query(`DROP INDEX IF EXISTS events_fanout_pending_idx`);
    await q.query(`ALTER TABLE events DROP COLUMN IF EXISTS fanned_out_at`);
    await q.query(`DROP TABLE IF EXISTS webhook_endpoints`);
  }
}
