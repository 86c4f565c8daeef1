import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customer notifications at most once (decisions section 16, amendments of
 * 2026-12-02): the moment a worker hands a message over to the SMTP server
 * or the SMS API (a claim without it may be taken by another worker; one
 * with it whose worker stopped ends FAILED, outcome unknown), the first
 * try whose outcome was unknown (an SMS may be asked again, under the same
 * `csms_id`, only while SSL Wireless still refuses that id as a repeat),
 * and the merchant's name the email is sent under.
 *
 * Messages claimed when this runs were claimed by workers that counted any
 * claim as a possible send: they are taken as handed over, so they are
 * never sent again.
 */
export class NotificationsAtMostOnce1797000002000 implements MigrationInterface {
  name = 'NotificationsAtMostOnce1797000002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE notifications
      ADD COLUMN handed_over_at TIMESTAMPTZ,
      ADD COLUMN outcome_unknown_since TIMESTAMPTZ,
      ADD COLUMN sender_name TEXT`);
    await q.query(`UPDATE notifications SET handed_over_at = sending_since
      WHERE status = 'QUEUED' AND sending_since IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE notifications DROP COLUMN handed_over_at,
      DROP COLUMN outcome_unknown_since, DROP COLUMN sender_name`);
  }
}
