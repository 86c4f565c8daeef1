import { appFixture } from '../support/app-fixture';
import { asApp, CreatedApp } from '../support/factories';
import { TestApp } from '../support/test-app';

describe('invoice to paid through the hosted pages (HTTP, no browser)', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture({ balancedLedger: true });
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  it('issues, pays on the sandbox checkout, and records payment.succeeded then invoice.paid', async () => {
    const created = await t
      .http()
      .post('/api/v1/invoices')
      .set(asApp(app.TEST))
      .send({
        customerReference: 'cust-1',
        lineItems: [{ description: 'Widget', qty: 2, unitAmountMinor: 61725 }],
      });
    expect(created.status).toBe(201);
    const invoice = created.body.data;
    expect(invoice).toMatchObject({
      number: 'INV-000001',
      status: 'ISSUED',
      totalMinor: 123450,
      amountDueMinor: 123450,
      mode: 'TEST',
    });
    const path = new URL(invoice.payableUrl).pathname;

    const pageRes = await t.http().get(path);
    expect(pageRes.status).toBe(200);
    expect(pageRes.text).toContain('৳1,234.50');

    const pay = await t.http().post(path);
    expect(pay.status).toBe(303);
    const checkout = new URL(pay.headers.location);
    expect(checkout.pathname).toMatch(/^\/sandbox\/checkout\/sbx_/);

    const done = await t.http().post(checkout.pathname).type('form').send({ outcome: 'pay' });
    expect(done.status).toBe(303);
    const back = await t
      .http()
      .get(
        new URL(done.headers.location, t.baseUrl).pathname +
          new URL(done.headers.location, t.baseUrl).search,
      );
    expect(back.status).toBe(303);
    expect(new URL(back.headers.location).pathname).toBe(path);

    const after = await t.http().get(`/api/v1/invoices/${invoice.id}`).set(asApp(app.TEST));
    expect(after.body.data).toMatchObject({
      status: 'PAID',
      amountPaidMinor: 123450,
      amountDueMinor: 0,
    });
    expect(after.body.data.payments).toHaveLength(1);
    expect(after.body.data.payments[0]).toMatchObject({ status: 'SUCCEEDED', amountMinor: 123450 });

    const events = await t.db.query('SELECT type, data FROM events WHERE app_id = $1 ORDER BY id', [
      app.id,
    ]);
    expect(events.rows.map((r) => r.type)).toEqual([
      'invoice.issued',
      'payment.succeeded',
      'invoice.paid',
    ]);
    expect(events.rows[1].data).toMatchObject({
      status: 'succeeded',
      previous_status: 'pending',
      amount_minor: 123450,
    });
    const paidPage = await t.http().get(path);
    expect(paidPage.text).toContain('This invoice is paid');
  });
});
