import { Client } from 'pg';

import { MoneyIntegrity1795340000000 } from '../../migrations/1795340000000-MoneyIntegrity';
import { RefundsCompositeKeys1797000007000 } from '../../migrations/1797000007000-RefundsCompositeKeys';
import { appFixture } from '../support/app-fixture';
import { asApp, bearer, CreatedApp, superAdminToken } from '../support/factories';
import { createInvoice, createPayment, eventsOf, expire, settle } from '../support/payments';
import { createTestDatabase, TestApp } from '../support/test-app';

/**
 * Never charge a customer twice, never lose a capture, never count an
 * invoice twice: a verified capture always ends as a SUCCEEDED payment, an
 * invoice counts at most its total, and what a capture brings beyond that is
 * the payment's excessMinor (listed for refund). The database backs it.
 */
describe('money integrity', () => {
  let t: TestApp;
  let app: CreatedApp;

  const fixture = appFixture({ balancedLedger: true });
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  const payPath = (invoice: Record<string, any>) => new URL(invoice.payableUrl).pathname;
  const paymentsOf = async (invoiceId: number) =>
    (
      await t.db.query(
        'SELECT id, status, amount_minor, excess_minor FROM payments WHERE invoice_id = $1 ORDER BY id',
        [invoiceId],
      )
    ).rows as { id: number; status: string; amount_minor: number; excess_minor: number }[];
  const invoiceRow = async (id: number) =>
    (await t.db.query('SELECT status, amount_paid_minor FROM invoices WHERE id = $1', [id]))
      .rows[0] as { status: string; amount_paid_minor: number };
  /** The customer pays on the sandbox checkout, and the browser comes back to Joma. */
  const customerPays = async (checkoutUrl: string) => {
    const done = await t
      .http()
      .post(new URL(checkoutUrl).pathname)
      .type('form')
      .send({ outcome: 'pay' });
    expect(done.status).toBe(303);
    const ret = new URL(done.headers.location, t.baseUrl);
    const back = await t.http().get(ret.pathname + ret.search);
    expect(back.status).toBe(303);
  };

  describe('the pay page', () => {
    it('pay, expire, pay again, pay both: the invoice counts its total once; the second capture is excess', async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'twice-1' });
      const a = await t.http().post(payPath(invoice));
      expect(a.status).toBe(303);
      const [pa] = await paymentsOf(invoice.id);
      expect((await expire(t, app.TEST, pa.id)).body.data.status).toBe('EXPIRED');
      const b = await t.http().post(payPath(invoice));
      expect(b.status).toBe(303);
      expect(b.headers.location).not.toBe(a.headers.location);
      await customerPays(b.headers.location);
      await customerPays(a.headers.location); // the expired checkout A was still payable

      expect(await invoiceRow(invoice.id)).toEqual({ status: 'PAID', amount_paid_minor: 100000 });
      const [first, second] = await paymentsOf(invoice.id);
      expect(first).toMatchObject({
        status: 'SUCCEEDED',
        amount_minor: 100000,
        excess_minor: 100000,
      });
      expect(second).toMatchObject({ status: 'SUCCEEDED', amount_minor: 100000, excess_minor: 0 });
      const succeeded = (await eventsOf(t, app.id, 'payment.succeeded')).filter(
        (e) => e.data.invoice_id === invoice.id,
      );
      expect(succeeded.map((e) => [e.data.payment_id, e.data.excess_minor])).toEqual([
        [second.id, 0],
        [first.id, 100000],
      ]);
      const invoiceEvents = (await eventsOf(t, app.id, 'invoice.')).filter(
        (e) => e.data.invoice_id === invoice.id,
      );
      expect(invoiceEvents.map((e) => e.type)).toEqual(['invoice.issued', 'invoice.paid']);

      const token = await superAdminToken(t);
      const listed = await t
        .http()
        .get(`/api/v1/admin/payments?excess=true&applicationId=${app.id}`)
        .set(bearer(token));
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((p: { id: number }) => p.id)).toContain(first.id);
      expect(listed.body.data.map((p: { id: number }) => p.id)).not.toContain(second.id);
      expect(listed.body.data.find((p: { id: number }) => p.id === first.id).excessMinor).toBe(
        100000,
      );
    });

    it('an expired checkout paid before Pay is clicked again is recorded first; no new checkout opens', async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'twice-2' });
      const a = await t.http().post(payPath(invoice));
      const [pa] = await paymentsOf(invoice.id);
      await expire(t, app.TEST, pa.id);
      // The customer pays A at the gateway, but the return never reaches Joma.
      const paid = await t
        .http()
        .post(new URL(a.headers.location).pathname)
        .type('form')
        .send({ outcome: 'pay' });
      expect(paid.status).toBe(303);
      const again = await t.http().post(payPath(invoice)).set('Accept-Language', 'en');
      expect(again.status).toBe(409);
      expect(again.text).toContain('This invoice is paid');
      expect(await paymentsOf(invoice.id)).toEqual([
        { id: pa.id, status: 'SUCCEEDED', amount_minor: 100000, excess_minor: 0 },
      ]);
      expect(await invoiceRow(invoice.id)).toEqual({ status: 'PAID', amount_paid_minor: 100000 });
    });

    it('two checkouts of one invoice captured at once: exactly one counts, the other is excess', async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'race-two' });
      const a = await t.http().post(payPath(invoice));
      const [pa] = await paymentsOf(invoice.id);
      await expire(t, app.TEST, pa.id);
      const b = await t.http().post(payPath(invoice));
      const returns: string[] = [];
      for (const checkout of [a.headers.location, b.headers.location]) {
        const done = await t
          .http()
          .post(new URL(checkout).pathname)
          .type('form')
          .send({ outcome: 'pay' });
        const back = new URL(done.headers.location, t.baseUrl);
        returns.push(back.pathname + back.search);
      }
      const answers = await Promise.all(returns.map((r) => t.http().get(r)));
      expect(answers.map((r) => r.status)).toEqual([303, 303]);
      const rows = await paymentsOf(invoice.id);
      expect(rows.map((r) => r.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
      expect(rows.map((r) => r.excess_minor).sort()).toEqual([0, 100000]);
      expect(await invoiceRow(invoice.id)).toEqual({ status: 'PAID', amount_paid_minor: 100000 });
    });
  });

  describe('API payments of an invoice', () => {
    it('open payments reserve the amount due: a second full payment is 422 naming the open one', async () => {
      const invoice = await createInvoice(t, app.TEST, {
        customerReference: 'api-1',
        lineItems: [{ description: 'Order', qty: 1, unitAmountMinor: 90000 }],
      });
      const first = await createPayment(t, app.TEST, {
        amountMinor: 90000,
        invoiceId: invoice.id,
        customerReference: 'api-1',
      });
      const second = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 90000, invoiceId: invoice.id });
      expect(second.status).toBe(422);
      expect(second.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
      expect(second.body.meta.message).toContain(`open payments ${first.id}`);
      expect(second.body.meta.details).toEqual([
        { field: 'amountMinor', message: second.body.meta.message },
      ]);
      // What is not reserved can still be paid: nothing here.
      const part = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 1000, invoiceId: invoice.id });
      expect(part.status).toBe(422);
    });

    it('three racing full payments: exactly one is accepted; settling everything counts the total once', async () => {
      const invoice = await createInvoice(t, app.TEST, {
        customerReference: 'api-race',
        lineItems: [{ description: 'Order', qty: 1, unitAmountMinor: 90000 }],
      });
      const tries = await Promise.all(
        [1, 2, 3].map(() =>
          t
            .http()
            .post('/api/v1/payments')
            .set(asApp(app.TEST))
            .send({ amountMinor: 90000, invoiceId: invoice.id }),
        ),
      );
      expect(tries.map((r) => r.status).sort()).toEqual([201, 422, 422]);
      const accepted = tries.find((r) => r.status === 201)!.body.data;
      expect((await settle(t, app.TEST, accepted.id)).status).toBe(200);
      expect(await invoiceRow(invoice.id)).toEqual({ status: 'PAID', amount_paid_minor: 90000 });
    });

    it("customerReference may be left out (the invoice's is used); a different one is 400 naming it", async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'owner-1' });
      const other = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 5000, invoiceId: invoice.id, customerReference: 'someone-else' });
      expect(other.status).toBe(400);
      expect(other.body.meta.details).toEqual([
        {
          field: 'customerReference',
          message: "customerReference must be the invoice's customer (or be left out)",
        },
      ]);
      const omitted = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 5000, invoiceId: invoice.id });
      expect(omitted.status).toBe(201);
      const owner = await t.db.query(
        'SELECT c.external_id FROM payments p JOIN customers c ON c.id = p.customer_id WHERE p.id = $1',
        [omitted.body.data.id],
      );
      expect(owner.rows[0].external_id).toBe('owner-1');
      // Without an invoice, customerReference stays required.
      const bare = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 5000 });
      expect(bare.status).toBe(400);
      expect(bare.body.meta.details[0].field).toBe('customerReference');
    });
  });

  describe('captures on cancelled payments and void invoices', () => {
    it('void while the customer is on the checkout: the checkout is closed, the customer and the settle helper are refused', async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'void-1' });
      const p = await createPayment(t, app.TEST, {
        amountMinor: 100000,
        invoiceId: invoice.id,
        customerReference: invoice.customerReference,
      });
      const voided = await t
        .http()
        .post(`/api/v1/invoices/${invoice.id}/void`)
        .set(asApp(app.TEST));
      expect(voided.status).toBe(200);
      const pay = await t
        .http()
        .post(new URL(p.checkoutUrl).pathname)
        .type('form')
        .send({ outcome: 'pay' });
      expect(pay.status).toBe(409);
      expect(pay.body.meta.errorCode).toBe('INVALID_STATE');
      const helper = await settle(t, app.TEST, p.id);
      expect(helper.status).toBe(409);
      expect(helper.body.meta.errorCode).toBe('INVALID_STATE');
      expect(await paymentsOf(invoice.id)).toEqual([
        { id: p.id, status: 'CANCELLED', amount_minor: 100000, excess_minor: 0 },
      ]);
      const page = await t.http().get(new URL(p.checkoutUrl).pathname);
      expect(page.text).toContain('The merchant closed this checkout');
    });

    it('expire, void, late capture: the payment succeeds, all of it excess; the VOID invoice holds no money', async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'void-2' });
      const p = await createPayment(t, app.TEST, {
        amountMinor: 100000,
        invoiceId: invoice.id,
        customerReference: invoice.customerReference,
      });
      await expire(t, app.TEST, p.id);
      expect(
        (await t.http().post(`/api/v1/invoices/${invoice.id}/void`).set(asApp(app.TEST))).status,
      ).toBe(200);
      // Expiry never closes a checkout: the customer can still pay, and it is recorded.
      const late = await settle(t, app.TEST, p.id);
      expect(late.status).toBe(200);
      expect(late.body.data).toMatchObject({ status: 'SUCCEEDED', excessMinor: 100000 });
      expect(await invoiceRow(invoice.id)).toEqual({ status: 'VOID', amount_paid_minor: 0 });
      const ev = (await eventsOf(t, app.id, 'payment.succeeded')).find(
        (e) => e.data.payment_id === p.id,
      )!;
      expect(ev.data).toMatchObject({ previous_status: 'expired', excess_minor: 100000 });
    });

    it('an explicit cancel closes the checkout; a payment without an invoice has no excess', async () => {
      const p = await createPayment(t, app.TEST, { customerReference: 'plain' });
      expect(p.excessMinor).toBe(0);
      expect(
        (await t.http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST))).status,
      ).toBe(200);
      const pay = await t
        .http()
        .post(new URL(p.checkoutUrl).pathname)
        .type('form')
        .send({ outcome: 'pay' });
      expect(pay.status).toBe(409);
    });
  });

  describe('the database backs the rules', () => {
    it('refuses an invoice counting more than its total, a VOID without voided_at, a wrong line total, cross-partition links', async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'db-1' });
      const tryQuery = (sql: string, params: unknown[]) =>
        t.db.query(sql, params).then(
          () => 'ok',
          (e: { code: string; constraint?: string }) => `${e.code} ${e.constraint ?? ''}`.trim(),
        );
      expect(
        await tryQuery('UPDATE invoices SET amount_paid_minor = total_minor + 1 WHERE id = $1', [
          invoice.id,
        ]),
      ).toBe('23514 invoices_paid_within_total');
      expect(
        await tryQuery(`UPDATE invoices SET status = 'VOID' WHERE id = $1`, [invoice.id]),
      ).toBe('23514 invoices_void_has_voided_at');
      expect(
        await tryQuery(
          'UPDATE invoice_line_items SET line_total_minor = line_total_minor + 1 WHERE invoice_id = $1',
          [invoice.id],
        ),
      ).toBe('23514 invoice_line_items_total');
      const live = await createInvoice(t, app.LIVE, { customerReference: 'db-live' });
      const liveCustomer = (
        await t.db.query('SELECT customer_id FROM invoices WHERE id = $1', [live.id])
      ).rows[0].customer_id as number;
      expect(
        await tryQuery('UPDATE invoices SET customer_id = $2 WHERE id = $1', [
          invoice.id,
          liveCustomer,
        ]),
      ).toBe('23503 invoices_customer_same_partition');
      const p = await createPayment(t, app.TEST, { customerReference: 'db-1' });
      expect(
        await tryQuery('UPDATE payments SET invoice_id = $2 WHERE id = $1', [p.id, live.id]),
      ).toBe('23503 payments_invoice_same_partition');
      expect(
        await tryQuery('UPDATE payments SET excess_minor = amount_minor + 1 WHERE id = $1', [p.id]),
      ).toMatch(/^23514 payments_excess/);
    });
  });

  describe('the migration on data from before the rule', () => {
    it('moves what over-counted invoices hold into their latest payments as excess, then adds the constraints', async () => {
      const url = await createTestDatabase('moneymig');
      const c = new Client({ connectionString: url });
      await c.connect();
      try {
        const q = { query: (sql: string) => c.query(sql) };
        const migration = new MoneyIntegrity1795340000000();
        // A later migration's keys rest on this one's: taken off first, as a rollback would.
        await new RefundsCompositeKeys1797000007000().down(q as never);
        await migration.down(q as never);
        const appId = (await c.query(`INSERT INTO apps (name) VALUES ('Old data') RETURNING id`))
          .rows[0].id as number;
        const cust = (
          await c.query(
            `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'TEST', 'old') RETURNING id`,
            [appId],
          )
        ).rows[0].id as number;
        const inv = async (number: string, status: string, total: number, paid: number) =>
          (
            await c.query(
              `INSERT INTO invoices (app_id, mode, number, status, customer_id, total_minor, amount_paid_minor, pay_token, due_date, issued_at, voided_at)
               VALUES ($1, 'TEST', $2, $3, $4, $5, $6, $7, CURRENT_DATE, now(), CASE WHEN $3 = 'VOID' THEN now() END) RETURNING id`,
              [appId, number, status, cust, total, paid, `tok_${number}_${'x'.repeat(24)}`],
            )
          ).rows[0].id as number;
        let seq = 0;
        const pay = async (invoiceId: number, amount: number, succeededAt: string) =>
          (
            await c.query(
              `INSERT INTO payments (app_id, mode, reference, status, amount_minor, gateway, customer_id, invoice_id, expires_at, succeeded_at)
               VALUES ($1, 'TEST', $2, 'SUCCEEDED', $3, 'sandbox', $4, $5, now(), $6) RETURNING id`,
              [appId, `pay_old_${++seq}_${'y'.repeat(12)}`, amount, cust, invoiceId, succeededAt],
            )
          ).rows[0].id as number;
        // Paid twice (the seed's double charge): 40,000 on a 20,000 invoice.
        const twice = await inv('INV-1', 'PAID', 20000, 40000);
        const t1 = await pay(twice, 20000, '2026-01-01T10:00:00Z');
        const t2 = await pay(twice, 20000, '2026-01-01T11:00:00Z');
        // Three API payments settled: 270,000 on a 90,000 invoice.
        const thrice = await inv('INV-2', 'PAID', 90000, 270000);
        const h = [
          await pay(thrice, 90000, '2026-01-02T10:00:00Z'),
          await pay(thrice, 90000, '2026-01-02T11:00:00Z'),
          await pay(thrice, 90000, '2026-01-02T12:00:00Z'),
        ];
        // A late capture on a VOID invoice.
        const voided = await inv('INV-3', 'VOID', 5000, 5000);
        const v = await pay(voided, 5000, '2026-01-03T10:00:00Z');
        // An honest one stays as it is.
        const fine = await inv('INV-4', 'PAID', 7000, 7000);
        const f = await pay(fine, 7000, '2026-01-04T10:00:00Z');

        await migration.up(q as never);

        const invoices = (
          await c.query(
            'SELECT id, amount_paid_minor FROM invoices WHERE app_id = $1 ORDER BY id',
            [appId],
          )
        ).rows;
        expect(invoices).toEqual([
          { id: twice, amount_paid_minor: 20000 },
          { id: thrice, amount_paid_minor: 90000 },
          { id: voided, amount_paid_minor: 0 },
          { id: fine, amount_paid_minor: 7000 },
        ]);
        const excess = Object.fromEntries(
          (
            await c.query('SELECT id, excess_minor FROM payments WHERE app_id = $1', [appId])
          ).rows.map((r) => [r.id, Number(r.excess_minor)]),
        );
        expect(excess).toEqual({
          [t1]: 0,
          [t2]: 20000,
          [h[0]]: 0,
          [h[1]]: 90000,
          [h[2]]: 90000,
          [v]: 5000,
          [f]: 0,
        });
        // The constraints are in place afterwards.
        await expect(
          c.query('UPDATE invoices SET amount_paid_minor = total_minor + 1 WHERE id = $1', [fine]),
        ).rejects.toMatchObject({ constraint: 'invoices_paid_within_total' });
      } finally {
        await c.end();
      }
    });
  });
});
