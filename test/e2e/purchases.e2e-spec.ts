import { appFixture } from '../support/app-fixture';
import { createPrice, createProduct, ONE_TIME } from '../support/catalog-factories';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { TestApp } from '../support/test-app';

/**
 * The purchase route's contract: the 201 envelope, the pay page's redirect,
 * 409 and 404 statuses, validation and idempotent replay. What a purchase
 * issues, writes (or not) and grants, and its invoice numbering under
 * concurrency, are proven as services in test/medium/purchases.medium-spec.ts.
 */
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

  it('answers 201 with the invoice, its number and a payable link; the pay page sends the payer to the checkout', async () => {
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
    const path = new URL(res.body.data.payableLink.payableUrl).pathname;
    const pay = await t.http().post(path);
    const invoice = await t
      .http()
      .get(`/api/v1/invoices/${res.body.data.invoiceId}`)
      .set(asApp(app.TEST));
    expect(invoice.body.data).toMatchObject({ priceId: price.id, customerReference: 'buyer-1' });
    const payment = invoice.body.data.payments[0];
    expect(pay.headers.location).toBe(`${payment.checkoutUrl}?lang=en`);
  });

  it('an inactive price or an archived product is 409 INVALID_STATE', async () => {
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
    for (const priceId of [inactive.id, archivedPrice.id]) {
      const res = await buy(app.TEST, { priceId });
      expect(res.status).toBe(409);
      expect(res.body.meta.errorCode).toBe('INVALID_STATE');
    }
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
});
