import { loadMigrations } from '../../migrations';
import { runMigrations } from '../../src/database/migrate';
import { migrationScratch } from '../support/migration-scratch';

/**
 * Issue 56: a refund's payment, invoice and customer are of the refund's
 * own app and mode, and the database says so (decisions section 13,
 * composite foreign keys). The migration checks the refunds already stored.
 */
describe('refunds composite keys (medium tier)', () => {
  const { url, db, migrateUpTo } = migrationScratch('refundkeys');

  const id = async (sql: string, params: unknown[]) =>
    (await db.query(`${sql} RETURNING id`, params)).rows[0].id as string;
  const customer = (app: string, mode: string, ref: string) =>
    id(`INSERT INTO customers (app_id, mode, external_id) VALUES ($1, $2, $3)`, [app, mode, ref]);
  const invoice = (app: string, mode: string, cust: string, number: string) =>
    id(
      `INSERT INTO invoices (app_id, mode, customer_id, number, status, total_minor, due_date, issued_at, pay_token)
       VALUES ($1, $2, $3, $4, 'ISSUED', 1000, current_date, now(), $4)`,
      [app, mode, cust, number],
    );
  const payment = (app: string, mode: string, cust: string, inv: string, ref: string) =>
    id(
      `INSERT INTO payments (app_id, mode, reference, status, amount_minor, currency, gateway, customer_id, invoice_id, expires_at)
       VALUES ($1, $2, $3, 'SUCCEEDED', 1000, 'BDT', 'sandbox', $4, $5, now())`,
      [app, mode, ref, cust, inv],
    );
  const refund = (app: string, mode: string, pay: string, inv: string | null, cust: string) =>
    id(
      `INSERT INTO refunds (app_id, mode, payment_id, invoice_id, customer_id, amount_minor, currency, status, approval_required, gateway)
       VALUES ($1, $2, $3, $4, $5, 100, 'BDT', 'PENDING', false, 'sandbox')`,
      [app, mode, pay, inv, cust],
    );
  const refused = (p: Promise<unknown>) =>
    p.then(
      () => 'stored',
      (e: { code: string; constraint?: string }) => `${e.code} ${e.constraint ?? ''}`.trim(),
    );

  it('the migration keeps valid refunds, stops on a stray one; then the database refuses a refund of another app or mode than its payment (23503)', async () => {
    expect(await migrateUpTo('RefundsCompositeKeys1797000007000')).toBeLessThan(
      loadMigrations().length,
    );

    const a = await id(`INSERT INTO apps (name) VALUES ('Shop A')`, []);
    const b = await id(`INSERT INTO apps (name) VALUES ('Shop B')`, []);
    const ca = await customer(a, 'LIVE', 'c-a');
    const cb = await customer(b, 'LIVE', 'c-b');
    const ia = await invoice(a, 'LIVE', ca, 'INV-A-1');
    const pa = await payment(a, 'LIVE', ca, ia, 'pay_a1');
    // Existing, valid refunds: one with its invoice, one without.
    await refund(a, 'LIVE', pa, ia, ca);
    await refund(a, 'LIVE', pa, null, ca);
    // A stray one (only possible before the keys): the migration names it and keeps nothing.
    const stray = await refund(b, 'LIVE', pa, null, cb);
    await expect(runMigrations(url)).rejects.toThrow(
      `Refunds ${stray} name a payment, invoice or customer of another app or mode`,
    );
    await db.query(`DELETE FROM refunds WHERE id = $1`, [stray]);
    // This migration first (any later ones after it).
    expect((await runMigrations(url))[0]).toBe('RefundsCompositeKeys1797000007000');
    expect((await db.query(`SELECT count(*)::int AS n FROM refunds`)).rows[0].n).toBe(2);

    expect(await refused(refund(b, 'LIVE', pa, null, cb))).toBe(
      '23503 refunds_payment_same_partition',
    );
    expect(await refused(refund(a, 'TEST', pa, null, ca))).toMatch(/^23503 refunds_/);
    expect(await refused(refund(a, 'LIVE', pa, null, cb))).toBe(
      '23503 refunds_customer_same_partition',
    );
    const ib = await invoice(b, 'LIVE', cb, 'INV-B-1');
    expect(await refused(refund(a, 'LIVE', pa, ib, ca))).toBe(
      '23503 refunds_invoice_same_partition',
    );
    expect(await refused(refund(a, 'LIVE', pa, ia, ca))).toBe('stored');
  });
});
