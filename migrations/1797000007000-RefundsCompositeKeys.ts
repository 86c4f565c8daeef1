import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds get the composite foreign keys payments already have (decisions
 * section 13, "the database backs the tenancy and money rules"): a refund's
 * payment, invoice and customer are of the refund's own app and mode.
 *
 * Payments gain the unique key `(id, app_id, mode)` the foreign key needs.
 * The keys are added NOT VALID (no long lock on a large table) and then
 * validated, so existing rows are checked too. A refund of another app or
 * mode than its payment, invoice or customer was never written by the code;
 * should one exist, the migration stops with the refunds' ids named, and
 * nothing of it stays (its transaction rolls back).
 */
export class RefundsCompositeKeys1797000007000 implements MigrationInterface {
  name = 'RefundsCompositeKeys1797000007000';

  async up(q: QueryRunner): Promise<void> {
    const strays = (await q.query(`
      SELECT r.id FROM refunds r
        JOIN payments p ON p.id = r.payment_id
        LEFT JOIN invoices i ON i.id = r.invoice_id
        JOIN customers c ON c.id = r.customer_id
       WHERE (p.app_id, p.mode) IS DISTINCT FROM (r.app_id, r.mode)
          OR (r.invoice_id IS NOT NULL AND (i.app_id, i.mode) IS DISTINCT FROM (r.app_id, r.mode))
          OR (c.app_id, c.mode) IS DISTINCT FROM (r.app_id, r.mode)
       ORDER BY r.id
       LIMIT 20`)) as { id: string }[];
    if (strays.length)
      throw new Error(
        `Refunds ${strays.map((r) => r.id).join(', ')} name a payment, invoice or customer of another app or mode; correct them, then migrate again`,
      );

    await q.query(
      `ALTER TABLE payments ADD CONSTRAINT payments_id_app_mode UNIQUE (id, app_id, mode)`,
    );
    await q.query(`
      ALTER TABLE refunds
        ADD CONSTRAINT refunds_payment_same_partition
          FOREIGN KEY (payment_id, app_id, mode) REFERENCES payments (id, app_id, mode) NOT VALID,
        ADD CONSTRAINT refunds_invoice_same_partition
          FOREIGN KEY (invoice_id, app_id, mode) REFERENCES invoices (id, app_id, mode) NOT VALID,
        ADD CONSTRAINT refunds_customer_same_partition
          FOREIGN KEY (customer_id, app_id, mode) REFERENCES customers (id, app_id, mode) NOT VALID`);
    for (const key of ['payment', 'invoice', 'customer'])
      await q.query(`ALTER TABLE refunds VALIDATE CONSTRAINT refunds_${key}_same_partition`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE refunds
        DROP CONSTRAINT refunds_customer_same_partition,
        DROP CONSTRAINT refunds_invoice_same_partition,
        DROP CONSTRAINT refunds_payment_same_partition`);
    await q.query(`ALTER TABLE payments DROP CONSTRAINT payments_id_app_mode`);
  }
}
