import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log is append-only against TRUNCATE too (decisions section 14):
 * the row triggers of 1795370000000 refuse UPDATE and DELETE, but TRUNCATE
 * fires no row trigger.
 */
export class AuditNoTruncate1796600000001 implements MigrationInterface {
  name = 'AuditNoTruncate1796600000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
        FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER audit_events_no_truncate ON audit_events`);
  }
}
