import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The database backs the money and tenancy rules, not only the code:
 * - `payments.excess_minor`: what a capture brought beyond what its invoice
 *   still needed (0 when none), to be refunded;
 * - an invoice never counts more than its total, and a VOID invoice counts
 *   nothing: rows from before this rule (captures on paid or void invoices
 *   were added to `amount_paid_minor`) are fixed here by moving the surplus
 *   into the excess of their latest successful payments;
 * - composite foreign keys keep a payment's invoice and customer, and an
 *   invoice's customer, in the same app and mode;
 * - line totals are qty x unit amount; VOID only with `voided_at`;
 * - the sandbox can close a checkout (an explicit cancel or void).
 */
export class MoneyIntegrity1795340000000 implements MigrationInterface {
  name = 'MoneyIntegrity1795340000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payments ADD COLUMN excess_minor BIGINT NOT NULL DEFAULT 0`);

    // Surplus of each over-counted invoice: everything on a VOID invoice,
    // the part above the total elsewhere. Spread over its SUCCEEDED payments,
    // newest first (the late ones brought it), each up to its own amount.
    await q.query(`
      WITH surplus AS (
        SELECT id, CASE WHEN status = 'VOID' THEN amount_paid_minor
                        ELSE amount_paid_minor - total_minor END AS minor
          FROM invoices
         WHERE (status = 'VOID' AND amount_paid_minor > 0) OR amount_paid_minor > total_minor
      ),
      ranked AS (
        SELECT p.id, p.amount_minor, s.minor AS surplus,
               COALESCE(SUM(p.amount_minor) OVER (
                 PARTITION BY p.invoice_id ORDER BY p.succeeded_at DESC NULLS LAST, p.id DESC
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
          FROM payments p JOIN surplus s ON s.id = p.invoice_id
         WHERE p.status = 'SUCCEEDED'
      )
      UPDATE payments p
         SET excess_minor = LEAST(r.amount_minor, r.surplus - r.before)
        FROM ranked r
       WHERE p.id = r.id AND r.surplus > r.before`);
    await q.query(`
      UPDATE invoices
         SET amount_paid_minor = CASE WHEN status = 'VOID' THEN 0 ELSE total_minor END
       WHERE (status = 'VOID' AND amount_paid_minor > 0) OR amount_paid_minor > total_minor`);

    await q.query(`
      ALTER TABLE payments
        ADD CONSTRAINT payments_excess_within_amount CHECK (excess_minor BETWEEN 0 AND amount_minor),
        ADD CONSTRAINT payments_excess_only_when_succeeded CHECK (excess_minor = 0 OR status = 'SUCCEEDED')`);
    await q.query(`
      ALTER TABLE invoices
        ADD CONSTRAINT invoices_paid_within_total CHECK (amount_paid_minor BETWEEN 0 AND total_minor),
        ADD CONSTRAINT invoices_void_counts_nothing CHECK (status <> 'VOID' OR amount_paid_minor = 0),
        ADD CONSTRAINT invoices_void_has_voided_at CHECK (status <> 'VOID' OR voided_at IS NOT NULL)`);
    await q.query(`
      ALTER TABLE invoice_line_items
        ADD CONSTRAINT invoice_line_items_total CHECK (line_total_minor = qty * unit_amount_minor)`);

    // Composite keys: a referenced row must be of the same app and mode.
    await q.query(
      `ALTER TABLE customers ADD CONSTRAINT customers_id_app_mode UNIQUE (id, app_id, mode)`,
    );
    await q.query(
      `ALTER TABLE invoices ADD CONSTRAINT invoices_id_app_mode UNIQUE (id, app_id, mode)`,
    );
    await q.query(`
      ALTER TABLE invoices ADD CONSTRAINT invoices_customer_same_partition
        FOREIGN KEY (customer_id, app_id, mode) REFERENCES customers (id, app_id, mode)`);
    await q.query(`
      ALTER TABLE payments ADD CONSTRAINT payments_customer_same_partition
        FOREIGN KEY (customer_id, app_id, mode) REFERENCES customers (id, app_id, mode)`);
    await q.query(`
      ALTER TABLE payments ADD CONSTRAINT payments_invoice_same_partition
        FOREIGN KEY (invoice_id, app_id, mode) REFERENCES invoices (id, app_id, mode)`);

    // The listing of captures with an excess (GET /admin/payments?excess=true).
    await q.query(`CREATE INDEX payments_excess_idx ON payments (id DESC) WHERE excess_minor > 0`);

    // A sandbox checkout the merchant closed (explicit cancel or void): it takes no payment.
    await q.query(
      `ALTER TABLE sandbox_sessions DROP CONSTRAINT IF EXISTS sandbox_sessions_status_check`,
    );
    await q.query(`
      ALTER TABLE sandbox_sessions ADD CONSTRAINT sandbox_sessions_status_check
        CHECK (status IN ('OPEN', 'CAPTURED', 'FAILED', 'CANCELLED', 'CLOSED'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sandbox_sessions DROP CONSTRAINT sandbox_sessions_status_check`);
    await q.query(`UPDATE sandbox_sessions SET status = 'CANCELLED' WHERE status = 'CLOSED'`);
    await q.query(`
      ALTER TABLE sandbox_sessions ADD CONSTRAINT sandbox_sessions_status_check
        CHECK (status IN ('OPEN', 'CAPTURED', 'FAILED', 'CANCELLED'))`);
    await q.query(`DROP INDEX payments_excess_idx`);
    await q.query(`ALTER TABLE payments DROP CONSTRAINT payments_invoice_same_partition`);
    await q.query(`ALTER TABLE payments DROP CONSTRAINT payments_customer_same_partition`);
    await q.query(`ALTER TABLE invoices DROP CONSTRAINT invoices_customer_same_partition`);
    await q.query(`ALTER TABLE invoices DROP CONSTRAINT invoices_id_app_mode`);
    await q.query(`ALTER TABLE customers DROP CONSTRAINT customers_id_app_mode`);
    await q.query(`ALTER TABLE invoice_line_items DROP CONSTRAINT invoice_line_items_total`);
    await q.query(`
      ALTER TABLE invoices
        DROP CONSTRAINT invoices_void_has_voided_at,
        DROP CONSTRAINT invoices_void_counts_nothing,
        DROP CONSTRAINT invoices_paid_within_total`);
    await q.query(`ALTER TABLE payments DROP COLUMN excess_minor`);
  }
}
