import { runMigrations } from '../../src/database/migrate';
import { expectBalancedLedger } from '../support/ledger';
import { migrationScratch } from '../support/migration-scratch';

/**
 * The ledger migration posts the captures of payments that succeeded before
 * the ledger existed: a database migrated up to just before it, holding
 * captured and uncaptured payments, balances right after it.
 */
describe('ledger backfill migration (medium tier)', () => {
  const { url, db, migrateUpTo } = migrationScratch('backfill');

  it('posts one balanced capture per SUCCEEDED payment and nothing for the others', async () => {
    expect(await migrateUpTo('RefundsLedger1795700000000')).toBeGreaterThan(5);

    const app = (await db.query(`INSERT INTO apps (name) VALUES ('Old shop') RETURNING id`)).rows[0]
      .id;
    const customer = (
      await db.query(
        `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'LIVE', 'c1') RETURNING id`,
        [app],
      )
    ).rows[0].id;
    const insert = (status: string, amount: number, ref: string) =>
      db.query(
        `INSERT INTO payments (app_id, mode, reference, status, amount_minor, currency, gateway, customer_id, expires_at, succeeded_at)
         VALUES ($1, 'LIVE', $2, $3, $4, 'BDT', 'sandbox', $5, now(), CASE WHEN $3 = 'SUCCEEDED' THEN now() END)`,
        [app, ref, status, amount, customer],
      );
    await insert('SUCCEEDED', 150000, 'pay_old_1');
    await insert('SUCCEEDED', 2500, 'pay_old_2');
    await insert('FAILED', 9999, 'pay_old_3');
    await insert('PENDING', 7777, 'pay_old_4');

    const applied = await runMigrations(url);
    expect(applied).toContain('RefundsLedger1795700000000');

    const rows = await db.query(
      `SELECT e.account, sum(e.debit_minor)::int AS d, sum(e.credit_minor)::int AS c
         FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
        WHERE t.app_id = $1 AND t.kind = 'capture' GROUP BY e.account ORDER BY e.account`,
      [app],
    );
    expect(rows.rows).toEqual([
      { account: 'gateway_clearing', d: 152500, c: 0 },
      { account: 'merchant_payable', d: 0, c: 152500 },
    ]);
    const count = await db.query(`SELECT count(*)::int AS n FROM ledger_transactions`);
    expect(count.rows[0].n).toBe(2);
    await expectBalancedLedger(db);
  });
});
