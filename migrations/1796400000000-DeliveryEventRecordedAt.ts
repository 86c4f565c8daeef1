import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery keeps when its event was recorded (written by the relay, which
 * has it from the events feature), so the dispatcher can report recorded ->
 * first attempt (`joma_webhook_first_attempt_delay_seconds`) without reading
 * the events table. Existing rows stay NULL: they are not counted.
 */
export class DeliveryEventRecordedAt1796400000000 implements MigrationInterface {
  name = 'DeliveryEventRecordedAt1796400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN event_recorded_at TIMESTAMPTZ`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN event_recorded_at`);
  }
}
