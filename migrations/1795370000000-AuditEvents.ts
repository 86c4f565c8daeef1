import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log: every admin action that changes something, and every
 * login lock-out, written in the same transaction as the change. Append-only:
 * a trigger refuses UPDATE and DELETE, so not even the service can rewrite
 * history (retention never touches it).
 */
export class AuditEvents1795370000000 implements MigrationInterface {
  name = 'AuditEvents1795370000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_events (
        id              BIGSERIAL PRIMARY KEY,
        created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
        actor_user_id   BIGINT,
        actor_email     TEXT,
        action          TEXT NOT NULL,
        target_type     TEXT NOT NULL,
        target_id       TEXT,
        before          JSONB,
        after           JSONB,
        client_address  TEXT,
        request_id      TEXT
      )`);
    await q.query(
      `CREATE INDEX audit_events_created_idx ON audit_events (created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX audit_events_target_idx ON audit_events (target_type, target_id)`);
    await q.query(`CREATE INDEX audit_events_actor_idx ON audit_events (actor_user_id)`);
    await q.query(`
      CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only';
      END $$`);
    await q.query(`
      CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
        FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_events`);
    await q.query(`DROP FUNCTION audit_events_append_only()`);
  }
}
