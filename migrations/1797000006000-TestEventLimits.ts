import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Test events are limited per endpoint (10 a minute, decisions 14 as
 * amended on 2026-12-02): like re-sends, the counter lives on the endpoint
 * row, so every replica counts in one place.
 */
export class TestEventLimits1797000006000 implements MigrationInterface {
  name = 'TestEventLimits1797000006000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN test_event_window_start TIMESTAMPTZ,
        ADD COLUMN test_event_count INTEGER NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints DROP COLUMN test_event_window_start, DROP COLUMN test_event_count`);
  }
}
