import { appFixture } from '../support/app-fixture';
import { asApp, bearer, CreatedApp, superAdminToken } from '../support/factories';
import { createInvoice, createPayment, expire, settle } from '../support/payments';
import type { TestApp } from '../support/test-app';

/**
 * Never charge a customer twice, never lose a capture, never count an
 * invoice twice, as HTTP shows it: the pay page's answers, the checkout's,
 * races fired through the API, statuses and envelopes. The rules themselves
 * (what an invoice counts, excess, reservation, captures on cancelled and
 * voided payments, the database constraints and their migration) are proven
 * on the services in test/medium/money-counting.medium-spec.ts.
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
    it('Pay after an expired checkout opens a new checkout; the late capture of the first is listed by the admin excess filter', async () => {
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
      const [first, second] = await paymentsOf(invoice.id);

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

    it('the pay page answers 409 "This invoice is paid" when the expired checkout was paid at the gateway before Pay is clicked again', async () => {
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
      expect(again.headers['content-type']).toMatch(/^text\/html/);
      expect(again.text).toContain('This invoice is paid');
      expect((await paymentsOf(invoice.id)).map((p) => p.id)).toEqual([pa.id]);
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
    it('a payment over what is due is 422 AMOUNT_OUT_OF_RANGE naming amountMinor and the open payment', async () => {
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

    it("another customerReference than the invoice's is 400 naming it; without an invoice it is required", async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'owner-1' });
      const other = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 5000, invoiceId: invoice.id, customerReference: 'someone-else' });
      expect(other.status).toBe(400);
      expect(other.body.meta.errorCode).toBe('VALIDATION_FAILED');
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
    it('void while the customer is on the checkout: the checkout answers 409 and says it is closed; the settle helper is 409', async () => {
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
      const page = await t.http().get(new URL(p.checkoutUrl).pathname);
      expect(page.text).toContain('The merchant closed this checkout');
    });

    it('after an explicit cancel the checkout answers 409', async () => {
      const p = await createPayment(t, app.TEST, { customerReference: 'plain' });
      const cancelled = await t.http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.data.status).toBe('CANCELLED');
      const pay = await t
        .http()
        .post(new URL(p.checkoutUrl).pathname)
        .type('form')
        .send({ outcome: 'pay' });
      expect(pay.status).toBe(409);
      expect(pay.body.meta.errorCode).toBe('INVALID_STATE');
    });
  });
});
