import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The daily report's refunds (decisions section 20, the Overview's
 * refunded and net): a refund counts on the Asia/Dhaka day it reached
 * SUCCEEDED. The refunds table records no such time; the ledger's
 * `refund_succeeded` transaction does (`occurred_at`, posted in the
 * transaction that made the refund SUCCEEDED). This index finds one app
 * and mode's successes over a range of days without reading the others
 * (the unique key (app_id, mode, kind, source_id) would read every one the
 * partition ever had).
 */
export class LedgerRefundsByDay1797000010000 implements MigrationInterface {
  name = 'LedgerRefundsByDay1797000010000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ledger_refunds_succeeded_by_time ON ledger_transactions (app_id, mode, occurred_at) WHERE kind = 'refund_succeeded'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ledger_refunds_succeeded_by_time`);
  }
}
