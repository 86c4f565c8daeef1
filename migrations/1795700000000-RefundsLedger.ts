import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds and the double-entry ledger. Ledger rows are append-only (a
 * trigger refuses UPDATE, DELETE and TRUNCATE) and every ledger transaction
 * must balance when its database transaction commits (deferred constraint
 * triggers). Captures of payments that SUCCEEDED before the ledger existed
 * are posted here, so existing data balances from the start.
 */
export class RefundsLedger1795700000000 implements MigrationInterface {
  name = 'RefundsLedger1795700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE payments ADD COLUMN amount_refunded_minor BIGINT NOT NULL DEFAULT 0,
        ADD CONSTRAINT payments_refunded_within_capture
          CHECK (amount_refunded_minor >= 0 AND amount_refunded_minor <= amount_minor)`);
    await q.query(`
      CREATE TABLE refunds (
        id                 BIGSERIAL PRIMARY KEY,
        app_id             BIGINT NOT NULL REFERENCES apps(id),
        mode               mode NOT NULL,
        payment_id         BIGINT NOT NULL REFERENCES payments(id),
        invoice_id         BIGINT REFERENCES invoices(id),
        customer_id        BIGINT NOT NULL REFERENCES customers(id),
        amount_minor       BIGINT NOT NULL CHECK (amount_minor > 0),
        currency           TEXT NOT NULL,
        status             TEXT NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
        reason             TEXT,
        approval_required  BOOLEAN NOT NULL,
        approved_at        TIMESTAMPTZ,
        gateway            TEXT NOT NULL,
        gateway_refund_id  TEXT,
        submitted_at       TIMESTAMPTZ,
        failure_reason     TEXT,
        created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at         TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX refunds_by_payment ON refunds (payment_id, id)`);
    await q.query(
      `CREATE INDEX refunds_by_partition ON refunds (app_id, mode, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX refunds_by_status ON refunds (status, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX refunds_awaiting_gateway ON refunds (submitted_at) WHERE status = 'PENDING' AND submitted_at IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE ledger_transactions (
        id           BIGSERIAL PRIMARY KEY,
        app_id       BIGINT NOT NULL REFERENCES apps(id),
        mode         mode NOT NULL,
        kind         TEXT NOT NULL CHECK (kind IN ('capture', 'refund_reserved', 'refund_succeeded', 'refund_released', 'settlement')),
        source_id    TEXT NOT NULL,
        occurred_at  TIMESTAMPTZ NOT NULL,
        created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (app_id, mode, kind, source_id)
      )`);
    await q.query(`
      CREATE TABLE ledger_entries (
        id              BIGSERIAL PRIMARY KEY,
        transaction_id  BIGINT NOT NULL REFERENCES ledger_transactions(id),
        app_id          BIGINT NOT NULL,
        mode            mode NOT NULL,
        account         TEXT NOT NULL CHECK (account IN ('gateway_clearing', 'merchant_payable', 'gateway_fees', 'refunds_pending', 'bank')),
        debit_minor     BIGINT NOT NULL DEFAULT 0 CHECK (debit_minor >= 0),
        credit_minor    BIGINT NOT NULL DEFAULT 0 CHECK (credit_minor >= 0),
        CHECK ((debit_minor = 0) <> (credit_minor = 0))
      )`);
    await q.query(`CREATE INDEX ledger_entries_by_transaction ON ledger_entries (transaction_id)`);
    await q.query(
      `CREATE INDEX ledger_entries_by_account ON ledger_entries (app_id, mode, account)`,
    );

    await q.query(`
      CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger rows are append-only: % on % refused (post a correcting transaction)', TG_OP, TG_TABLE_NAME;
      END $$`);
    for (const table of ['ledger_transactions', 'ledger_entries']) {
      await q.query(
        `CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ledger_append_only()`,
      );
      await q.query(
        `CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only()`,
      );
    }
    await q.query(`
      CREATE FUNCTION ledger_transaction_balanced(tx BIGINT) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE d BIGINT; c BIGINT; n INT;
      BEGIN
        SELECT COALESCE(sum(debit_minor), 0), COALESCE(sum(credit_minor), 0), count(*)
          INTO d, c, n FROM ledger_entries WHERE transaction_id = tx;
        IF n < 2 OR d <> c THEN
          RAISE EXCEPTION 'ledger transaction % does not balance (% entries, debits %, credits %)', tx, n, d, c;
        END IF;
      END $$`);
    await q.query(`
      CREATE FUNCTION ledger_check_entry() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM ledger_transaction_balanced(NEW.transaction_id); RETURN NULL; END $$`);
    await q.query(`
      CREATE FUNCTION ledger_check_transaction() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM ledger_transaction_balanced(NEW.id); RETURN NULL; END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER ledger_entries_balance AFTER INSERT ON ledger_entries
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_entry()`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER ledger_transactions_have_entries AFTER INSERT ON ledger_transactions
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_transaction()`);

    // Backfill: captures that happened before the ledger.
    await q.query(`
      WITH caps AS (
        INSERT INTO ledger_transactions (app_id, mode, kind, source_id, occurred_at)
        SELECT app_id, mode, 'capture', id::text, COALESCE(succeeded_at, updated_at)
          FROM payments WHERE status = 'SUCCEEDED'
        RETURNING id, app_id, mode, source_id)
      INSERT INTO ledger_entries (transaction_id, app_id, mode, account, debit_minor, credit_minor)
      SELECT c.id, c.app_id, c.mode, x.account, x.debit, x.credit
        FROM caps c
        JOIN payments p ON p.id = c.source_id::bigint
        CROSS JOIN LATERAL (VALUES ('gateway_clearing', p.amount_minor, 0::bigint),
                                   ('merchant_payable', 0::bigint, p.amount_minor)) AS x (account, debit, credit)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ledger_entries`);
    await q.query(`DROP TABLE ledger_transactions`);
    await q.query(`DROP FUNCTION ledger_check_entry(), ledger_check_transaction()`);
    await q.query(`DROP FUNCTION ledger_transaction_balanced(BIGINT), ledger_append_only()`);
    await q.query(`DROP TABLE refunds`);
    await q.query(
      `ALTER TABLE payments DROP CONSTRAINT payments_refunded_within_capture, DROP COLUMN amount_refunded_minor`,
    );
  }
}
