import { bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { createInvoice, createPayment } from '../support/payments';
import { SslcommerzFake } from '../support/sslcommerz-fake';
import { createTestApp, TestApp } from '../support/test-app';

const STORE = { storeId: 'limits_store', storePassword: 'limits_store@ssl' };

/**
 * Issue 43, finding 6 (decisions 14): the pay button, which anyone can drive
 * cross-site, cannot multiply checkouts or gateway calls. Choosing a gateway
 * already tried reuses its open checkout; an invoice has at most 3 open
 * checkouts; each earlier checkout is asked about at most once per 30 s.
 * The gateway is the SSLCommerz contract fake, which counts what it is sent.
 */
describe('the pay button cannot multiply checkouts or gateway calls', () => {
  let fake: SslcommerzFake;
  let t: TestApp;
  let app: CreatedApp;
  beforeAll(async () => {
    fake = await new SslcommerzFake(STORE.storeId, STORE.storePassword).start();
    t = await createTestApp({
      config: { sslcommerzSandboxUrl: fake.baseUrl, sslcommerzLiveUrl: fake.baseUrl },
    });
    app = await createApp(t);
    const set = await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/gateways/sslcommerz?mode=TEST`)
      .set(bearer(await superAdminToken(t)))
      .send({ credentials: STORE });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await fake.stop();
  });

  const payPath = (invoice: Record<string, any>) => new URL(invoice.payableUrl).pathname;
  const click = (invoice: Record<string, any>, gateway: string) =>
    t.http().post(payPath(invoice)).type('form').send({ gateway });
  const pendingOf = async (invoiceId: number) =>
    (
      await t.db.query(
        `SELECT gateway FROM payments WHERE invoice_id = $1 AND status = 'PENDING' ORDER BY id`,
        [invoiceId],
      )
    ).rows.map((r) => r.gateway as string);

  it('40 clicks alternating two gateways: two checkouts, and the gateway asked about each at most once per 30 s', async () => {
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'alt' });
    const before = fake.requests.length;
    const places = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const res = await click(invoice, i % 2 === 0 ? 'sandbox' : 'sslcommerz');
      expect(res.status).toBe(303);
      places.add(res.headers.location);
    }
    expect(await pendingOf(invoice.id)).toEqual(['sandbox', 'sslcommerz']);
    expect(places.size).toBe(2);
    // One session opened at SSLCommerz, and its status asked once in those seconds.
    const sent = fake.requests.slice(before).map((r) => r.path);
    expect(sent.filter((p) => p.includes('gwprocess')).length).toBe(1);
    expect(sent.length).toBeLessThanOrEqual(2);
    // 30 s later a click asks again, once.
    t.clock.advance(31_000);
    expect((await click(invoice, 'sslcommerz')).status).toBe(303);
    expect(fake.requests.length - before - sent.length).toBe(1);
  });

  it('an invoice with 3 open checkouts: the button reuses one for the chosen gateway and amount, or says to wait (429)', async () => {
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'busy' });
    for (let i = 0; i < 3; i++)
      await createPayment(t, app.TEST, {
        invoiceId: invoice.id,
        customerReference: 'busy',
        amountMinor: 30000,
      });
    const refused = await click(invoice, 'sandbox');
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('This invoice already has payments in progress');
    const bn = await t
      .http()
      .post(`${payPath(invoice)}?lang=bn`)
      .type('form')
      .send({ gateway: 'sandbox' });
    expect(bn.status).toBe(429);
    expect(bn.text).toContain('এই ইনভয়েসের কয়েকটি পরিশোধ এখন চলমান');
    expect((await pendingOf(invoice.id)).length).toBe(3);
  });
});
