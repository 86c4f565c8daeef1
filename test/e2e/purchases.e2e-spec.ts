import { appFixture } from '../support/app-fixture';
import { createPrice, createProduct, ONE_TIME } from '../support/catalog-factories';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { eventsOf, settle } from '../support/payments';
import { TestApp } from '../support/test-app';

describe('purchases', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture({ balancedLedger: true });
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  const buy = (creds: CreatedApp['TEST'], body: Record<string, unknown>) =>
    t
      .http()
      .post('/api/v1/purchases')
      .set(asApp(creds))
      .send({ customerReference: 'buyer-1', ...body });

  it('turns a ONE_TIME price into an ISSUED invoice with one line and a payable link that can be paid', async () => {
    const product = await createProduct(t, app, 'TEST', { name: 'Bangla Dictionary' });
    const price = await createPrice(t, app, product.id, { type: 'ONE_TIME', amountMinor: 89900 });
    const res = await buy(app.TEST, { priceId: price.id, customerName: 'Karim' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      invoiceId: expect.any(Number),
      invoiceNumber: expect.stringMatching(/^INV-\d{6}$/),
      status: 'ISSUED',
      totalMinor: 89900,
      currency: 'BDT',
      priceId: price.id,
      productId: product.id,
      payableLink: { payableUrl: expect.stringMatching(new RegExp(`^${t.baseUrl}/pay/`)) },
      subscriptionId: null,
    });
    const invoice = (
      await t.http().get(`/api/v1/invoices/${res.body.data.invoiceId}`).set(asApp(app.TEST))
    ).body.data;
    expect(invoice).toMatchObject({
      priceId: price.id,
      customerReference: 'buyer-1',
      customerName: 'Karim',
      totalMinor: 89900,
    });
    expect(invoice.lineItems).toEqual([
      {
        id: expect.any(Number),
        description: 'Bangla Dictionary',
        qty: 1,
        unitAmountMinor: 89900,
        lineTotalMinor: 89900,
      },
    ]);
    const issued = (await eventsOf(t, app.id, 'invoice.issued')).filter(
      (e) => e.data.invoice_id === invoice.id,
    );
    expect(issued[0].data).toMatchObject({ price_id: price.id, total_minor: 89900 });

    // pay it through the pay page and the sandbox
    const path = new URL(res.body.data.payableLink.payableUrl).pathname;
    const pay = await t.http().post(path);
    const payment = (await t.http().get(`/api/v1/invoices/${invoice.id}`).set(asApp(app.TEST))).body
      .data.payments[0];
    expect(pay.headers.location).toBe(`${payment.checkoutUrl}?lang=en`);
    await settle(t, app.TEST, payment.id);
    expect(
      (await t.http().get(`/api/v1/invoices/${invoice.id}`).set(asApp(app.TEST))).body.data.status,
    ).toBe('PAID');
  });

  it('refuses inactive prices and archived products with 409 and writes nothing', async () => {
    const product = await createProduct(t, app);
    const inactive = await createPrice(t, app, product.id, ONE_TIME);
    await t
      .http()
      .post(`/api/v1/products/${product.id}/prices/${inactive.id}/deactivate`)
      .set(asApp(app.TEST));
    const archivedProduct = await createProduct(t, app);
    const archivedPrice = await createPrice(t, app, archivedProduct.id, ONE_TIME);
    const archive = await t
      .http()
      .post(`/api/v1/admin/products/${archivedProduct.id}/archive`)
      .set(bearer(await superAdminToken(t)));
    expect(archive.status).toBe(200);
    const before = (
      await t.db.query('SELECT count(*)::int AS n FROM invoices WHERE app_id = $1', [app.id])
    ).rows[0].n;
    for (const priceId of [inactive.id, archivedPrice.id]) {
      const res = await buy(app.TEST, { priceId });
      expect(res.status).toBe(409);
      expect(res.body.meta.errorCode).toBe('INVALID_STATE');
    }
    expect(
      (await t.db.query('SELECT count(*)::int AS n FROM invoices WHERE app_id = $1', [app.id]))
        .rows[0].n,
    ).toBe(before);
  });

  it('keeps prices inside their app and mode', async () => {
    const product = await createProduct(t, app);
    const price = await createPrice(t, app, product.id, ONE_TIME);
    const other = await createApp(t);
    for (const creds of [app.LIVE, other.TEST]) {
      const res = await buy(creds, { priceId: price.id });
      expect(res.status).toBe(404);
      expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    }
  });

  it('validates the request and replays an idempotent purchase without a second invoice', async () => {
    expect((await buy(app.TEST, { priceId: 'one' })).status).toBe(400);
    expect((await buy(app.TEST, { priceId: 1, quantity: 2 })).body.meta.errorCode).toBe(
      'VALIDATION_FAILED',
    );
    const product = await createProduct(t, app);
    const price = await createPrice(t, app, product.id, ONE_TIME);
    const send = () =>
      t
        .http()
        .post('/api/v1/purchases')
        .set(asApp(app.TEST))
        .set('Idempotency-Key', 'buy-1')
        .send({ priceId: price.id, customerReference: 'idem-buyer' });
    const [a, b] = await Promise.all([send(), send()]);
    const statuses = [a.status, b.status].sort();
    expect([
      [201, 201],
      [201, 409],
    ]).toContainEqual(statuses);
    const rows = await t.db.query(`SELECT count(*)::int AS n FROM invoices WHERE price_id = $1`, [
      price.id,
    ]);
    expect(rows.rows[0].n).toBe(1);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('concurrent purchases each get their own invoice, numbered without gaps or repeats', async () => {
    const fresh = await createApp(t);
    const product = await createProduct(t, fresh, 'TEST', { name: 'Poster' });
    const price = await createPrice(t, fresh, product.id, { type: 'ONE_TIME', amountMinor: 20000 });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        buy(fresh.TEST, { priceId: price.id, customerReference: `rush-${i % 3}` }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const numbers = results.map((r) => r.body.data.invoiceNumber).sort();
    expect(numbers).toEqual(
      Array.from({ length: 12 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`),
    );
    const issued = await eventsOf(t, fresh.id, 'invoice.issued');
    expect(issued).toHaveLength(12);
    const customers = await t.db.query(
      'SELECT count(*)::int AS n FROM customers WHERE app_id = $1',
      [fresh.id],
    );
    expect(customers.rows[0].n).toBe(3);
  });
});
