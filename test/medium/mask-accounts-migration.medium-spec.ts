import { runMigrations } from '../../src/database/migrate';
import { migrationScratch } from '../support/migration-scratch';

/**
 * Wallet and card numbers stored whole before decisions section 11 said
 * "masked" are masked by the migration that brings it (labels too), and
 * sent refunds count as sent once.
 */
describe('masking migration (medium tier)', () => {
  const { url, db, migrateUpTo } = migrationScratch('maskacct');

  it('masks stored wallet numbers and their labels; leaves masked and empty ones be', async () => {
    await migrateUpTo('GatewaysRoundTwo1796700000000');

    const app = (await db.query(`INSERT INTO apps (name) VALUES ('Old shop') RETURNING id`)).rows[0]
      .id;
    const customer = (
      await db.query(
        `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'LIVE', 'c1') RETURNING id`,
        [app],
      )
    ).rows[0].id;
    const insert = (ref: string, account: string | null, label: string | null) =>
      db.query(
        `INSERT INTO payments (app_id, mode, reference, status, amount_minor, currency, gateway, customer_id, expires_at,
                               payment_method_account, payment_method_label)
         VALUES ($1, 'LIVE', $2, 'FAILED', 1000, 'BDT', 'bkash', $3, now(), $4, $5)`,
        [app, ref, customer, account, label],
      );
    await insert('pay_m1', '01770618575', 'bKash 01770618575');
    await insert('pay_m2', '432149XXXXXX0667', 'VISA 432149XXXXXX0667');
    await insert('pay_m3', null, 'bKash');

    expect(await runMigrations(url)).toContain('GatewaysRoundTwo1796700000000');
    const rows = await db.query(
      `SELECT reference, payment_method_account AS a, payment_method_label AS l, risk_level
         FROM payments ORDER BY reference`,
    );
    expect(rows.rows).toEqual([
      { reference: 'pay_m1', a: '01*******75', l: 'bKash 01*******75', risk_level: 'NORMAL' },
      {
        reference: 'pay_m2',
        a: '43************67',
        l: 'VISA 43************67',
        risk_level: 'NORMAL',
      },
      { reference: 'pay_m3', a: null, l: 'bKash', risk_level: 'NORMAL' },
    ]);
  });
});
