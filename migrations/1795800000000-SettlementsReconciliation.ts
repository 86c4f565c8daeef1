import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Settlement lines (imported CSVs or pulled from gateways), reconciliation
 * runs and their exception items. The ledger's balance check moves from
 * deferred per-row triggers to statement-level checks at insert (transition
 * tables), so a 100,000-line settlement posts in one statement and is
 * checked once; a ledger transaction's entries are inserted with it, in one
 * statement.
 */
export class SettlementsReconciliation1795800000000 implements MigrationInterface {
  name = 'SettlementsReconciliation1795800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE settlement_imports (
        id          BIGSERIAL PRIMARY KEY,
        app_id      BIGINT NOT NULL REFERENCES apps(id),
        mode        mode NOT NULL,
        gateway     TEXT NOT NULL,
        source      TEXT NOT NULL CHECK (source IN ('csv', 'gateway')),
        lines       INTEGER NOT NULL,
        imported    INTEGER NOT NULL,
        duplicates  INTEGER NOT NULL,
        rejected    JSONB NOT NULL,
        created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE settlement_lines (
        id                BIGSERIAL PRIMARY KEY,
        app_id            BIGINT NOT NULL REFERENCES apps(id),
        mode              mode NOT NULL,
        gateway           TEXT NOT NULL,
        gateway_txn_id    TEXT NOT NULL,
        amount_minor      BIGINT NOT NULL CHECK (amount_minor > 0),
        fee_minor         BIGINT NOT NULL DEFAULT 0 CHECK (fee_minor >= 0 AND fee_minor <= amount_minor),
        currency          TEXT NOT NULL,
        transaction_time  TIMESTAMPTZ NOT NULL,
        settled_on        DATE,
        import_id         BIGINT NOT NULL REFERENCES settlement_imports(id),
        created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (app_id, mode, gateway, gateway_txn_id)
      )`);
    await q.query(
      `CREATE INDEX settlement_lines_by_time ON settlement_lines (transaction_time, app_id, mode)`,
    );
    await q.query(
      `CREATE INDEX payments_captured_at ON payments (succeeded_at) WHERE status = 'SUCCEEDED'`,
    );
    await q.query(
      `CREATE INDEX payments_by_gateway_txn ON payments (app_id, mode, gateway, gateway_txn_id) WHERE gateway_txn_id IS NOT NULL`,
    );
    // The payments feature's published read model for reconciliation: captures only, read-only.
    await q.query(`
      CREATE VIEW payment_captures AS
        SELECT id, app_id, mode, gateway, gateway_txn_id, amount_minor, currency, succeeded_at AS captured_at
          FROM payments WHERE status = 'SUCCEEDED'`);
    await q.query(`
      CREATE TABLE reconciliation_runs (
        id                     BIGSERIAL PRIMARY KEY,
        app_id                 BIGINT REFERENCES apps(id),
        mode                   mode,
        period                 DATE NOT NULL,
        trigger                TEXT NOT NULL CHECK (trigger IN ('api', 'nightly')),
        matched                INTEGER NOT NULL,
        missing_in_settlement  INTEGER NOT NULL,
        missing_internal       INTEGER NOT NULL,
        amount_mismatch        INTEGER NOT NULL,
        deferred               INTEGER NOT NULL,
        ledger_balanced        BOOLEAN NOT NULL,
        created_at             TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX reconciliation_runs_recent ON reconciliation_runs (created_at DESC, id DESC)`,
    );
    await q.query(`
      CREATE TABLE reconciliation_items (
        id                       BIGSERIAL PRIMARY KEY,
        run_id                   BIGINT NOT NULL REFERENCES reconciliation_runs(id),
        class                    TEXT NOT NULL CHECK (class IN ('amountMismatch', 'missingInternal', 'missingInSettlement', 'deferred')),
        payment_id               BIGINT,
        gateway                  TEXT NOT NULL,
        gateway_txn_id           TEXT,
        internal_amount_minor    BIGINT,
        settlement_amount_minor  BIGINT,
        app_id                   BIGINT NOT NULL,
        mode                     mode NOT NULL
      )`);
    await q.query(
      `CREATE INDEX reconciliation_items_by_run ON reconciliation_items (run_id, class, id)`,
    );
    // The nightly run of a period is claimed once, whichever replica gets there first.
    await q.query(
      `CREATE TABLE nightly_reconciliations (period DATE PRIMARY KEY, claimed_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );

    // Ledger balance: checked per statement at insert instead of per row at commit.
    await q.query(`DROP TRIGGER ledger_entries_balance ON ledger_entries`);
    await q.query(`DROP TRIGGER ledger_transactions_have_entries ON ledger_transactions`);
    await q.query(
      `DROP FUNCTION ledger_check_entry(), ledger_check_transaction(), ledger_transaction_balanced(BIGINT)`,
    );
    await q.query(`
      CREATE FUNCTION ledger_check_new_entries() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE bad RECORD;
      BEGIN
        SELECT e.transaction_id AS tx, count(*) AS n, sum(e.debit_minor) AS d, sum(e.credit_minor) AS c INTO bad
          FROM ledger_entries e
         WHERE e.transaction_id IN (SELECT DISTINCT transaction_id FROM new_entries)
         GROUP BY e.transaction_id
        HAVING count(*) < 2 OR sum(e.debit_minor) <> sum(e.credit_minor)
         LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION 'ledger transaction % does not balance (% entries, debits %, credits %)', bad.tx, bad.n, bad.d, bad.c;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION ledger_check_new_transactions() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE bad BIGINT;
      BEGIN
        SELECT t.id INTO bad FROM new_transactions t
         WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transaction_id = t.id) LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION 'ledger transaction % does not balance (no entries inserted with it)', bad;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER ledger_entries_balance AFTER INSERT ON ledger_entries
        REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION ledger_check_new_entries()`);
    await q.query(`
      CREATE TRIGGER ledger_transactions_have_entries AFTER INSERT ON ledger_transactions
        REFERENCING NEW TABLE AS new_transactions FOR EACH STATEMENT EXECUTE FUNCTION ledger_check_new_transactions()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER ledger_entries_balance ON ledger_entries`);
    await q.query(`DROP TRIGGER ledger_transactions_have_entries ON ledger_transactions`);
    await q.query(`DROP FUNCTION ledger_check_new_entries(), ledger_check_new_transactions()`);
    await q.query(`DROP TABLE nightly_reconciliations, reconciliation_items, reconciliation_runs`);
    await q.query(`DROP VIEW payment_captures`);
    await q.query(`DROP INDEX payments_captured_at, payments_by_gateway_txn`);
    await q.query(`DROP TABLE settlement_lines, settlement_imports`);
  }
}
