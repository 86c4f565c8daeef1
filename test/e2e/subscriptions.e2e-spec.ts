import { appFixture } from '../support/app-fixture';
import {
  attachBenefit,
  createBenefit,
  createPrice,
  createProduct,
  MONTHLY,
} from '../support/catalog-factories';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { TestApp } from '../support/test-app';

/** Dhaka calendar date of the test clock plus `days`. */
const dhaka = (ms: number, days = 0) =>
  new Date(ms + 6 * 3600_000 + days * 86_400_000).toISOString().slice(0, 10);

/**
 * The subscriptions' HTTP contract: statuses, envelopes and the response
 * shapes of purchase, read, pause, resume, cancel, advance and entitlements;
 * 409 INVALID_STATE for illegal moves and 400 for bad input; lists with
 * filters and sort; the app and mode partition; LIVE keys refused. The
 * lifecycle's rules (states, renewals, dunning, entitlements, events, dates,
 * one renewal per period) are proven as services in
 * test/medium/subscriptions.medium-spec.ts and test/medium/purchases.medium-spec.ts.
 */
describe('subscriptions and entitlements', () => {
  let t: TestApp;
  let app: CreatedApp;
  let seq = 0;
  const fixture = appFixture({ balancedLedger: true });
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  const http = () => t.http();
  const as = (creds = app.TEST) => asApp(creds);

  /** A product with one active benefit and a RECURRING price. */
  async function plan(price: Record<string, unknown> = MONTHLY, a = app) {
    const product = await createProduct(t, a, 'TEST', { name: `Plan ${++seq}` });
    const benefit = await createBenefit(t, a, `perk-${seq}`, { activate: true });
    expect((await attachBenefit(t, product.id, benefit.id)).status).toBe(200);
    const p = await createPrice(t, a, product.id, price);
    return { product, benefit, price: p };
  }

  async function buy(priceId: number, customerReference: string, creds = app.TEST) {
    const res = await http()
      .post('/api/v1/purchases')
      .set(asApp(creds))
      .send({ priceId, customerReference });
    expect(res.status).toBe(201);
    return res.body.data;
  }

  const advance = (id: number, creds = app.TEST) =>
    http().post(`/api/v1/test-helpers/subscriptions/${id}/advance`).set(asApp(creds)).send();

  it('a RECURRING purchase answers 201 with its subscription; GET /subscriptions/{id}, its pay page and the entitlements route show it (404 for an unknown customer)', async () => {
    const { product, benefit, price } = await plan({ ...MONTHLY, trialDays: 7 });
    const res = await http()
      .post('/api/v1/purchases')
      .set(as())
      .send({ priceId: price.id, customerReference: 'sub-a' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      invoiceId: expect.any(Number),
      status: 'ISSUED',
      totalMinor: 50000,
      priceId: price.id,
      productId: product.id,
      subscriptionId: expect.any(Number),
    });
    const { subscriptionId: id, invoiceId } = res.body.data;
    const today = dhaka(t.clock.nowMs());
    const trialEnd = dhaka(t.clock.nowMs(), 7);
    const got = await http().get(`/api/v1/subscriptions/${id}`).set(as());
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({
      id,
      status: 'TRIALING',
      productId: product.id,
      priceId: price.id,
      customerReference: 'sub-a',
      startDate: today,
      currentPeriodStart: null,
      nextBillingDate: trialEnd,
      trialEndDate: trialEnd,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      amountMinor: 50000,
      currency: 'BDT',
      interval: 'MONTH',
      intervalCount: 1,
      openInvoiceId: invoiceId,
      mode: 'TEST',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const page = await http()
      .get(new URL(res.body.data.payableLink.payableUrl).pathname)
      .set('Accept-Language', 'en');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Subscription #${id}`);
    const held = await http().get('/api/v1/customers/sub-a/entitlements').set(as());
    expect(held.status).toBe(200);
    expect(held.body.data).toEqual([
      {
        benefitId: benefit.id,
        lookupKey: benefit.lookupKey,
        name: benefit.lookupKey,
        grantedAt: expect.any(String),
        subscriptionId: id,
        invoiceId: null,
      },
    ]);
    const nobody = await http().get('/api/v1/customers/nobody-here/entitlements').set(as());
    expect(nobody.status).toBe(404);
    expect(nobody.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
  });

  it('pause, resume, cancel and advance answer 200 with the subscription; illegal moves are 409 INVALID_STATE; a bad atPeriodEnd is 400', async () => {
    const { price } = await plan({ ...MONTHLY, trialDays: 7 });
    const id = (await buy(price.id, 'sub-e')).subscriptionId;
    const post = (path: string, body: Record<string, unknown> = {}) =>
      http().post(`/api/v1/subscriptions/${id}/${path}`).set(as()).send(body);
    const ok = (res: { status: number; body: any }, data: Record<string, unknown>) => {
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id, ...data });
    };
    const refused = (res: { status: number; body: any }) => {
      expect(res.status).toBe(409);
      expect(res.body.meta.errorCode).toBe('INVALID_STATE');
    };
    refused(await post('resume'));
    ok(await post('pause'), { status: 'PAUSED' });
    refused(await post('pause'));
    refused(await advance(id));
    ok(await post('resume'), { status: 'TRIALING' });
    ok(await advance(id), { status: 'TRIALING' }); // the trial-end warning
    const bad = await post('cancel', { atPeriodEnd: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.meta.errorCode).toBe('VALIDATION_FAILED');
    ok(await post('cancel', { atPeriodEnd: true }), {
      status: 'TRIALING',
      cancelAtPeriodEnd: true,
    });
    ok(await post('cancel'), { status: 'CANCELED', canceledAt: expect.any(String) });
    refused(await post('cancel'));
    refused(await advance(id));
  });

  it('lists with filters and Spring sort; other apps and the other mode see nothing; LIVE keys cannot advance', async () => {
    const { price } = await plan();
    const a = await buy(price.id, 'list-1');
    const b = await buy(price.id, 'list-2');
    const list = await http()
      .get('/api/v1/subscriptions?customerReference=list-1&sort=createdAt,desc')
      .set(as());
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: number }) => s.id)).toEqual([a.subscriptionId]);
    expect(Object.keys(list.body.data[0]).sort()).toEqual(
      [
        'id',
        'status',
        'productId',
        'priceId',
        'startDate',
        'nextBillingDate',
        'cancelAtPeriodEnd',
        'mode',
        'createdAt',
      ].sort(),
    );
    const asc = await http().get('/api/v1/subscriptions?sort=id,asc&size=100').set(as());
    const ids = asc.body.data.map((s: { id: number }) => s.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(ids).toEqual(expect.arrayContaining([a.subscriptionId, b.subscriptionId]));
    expect((await http().get('/api/v1/subscriptions?sort=secret,asc').set(as())).status).toBe(400);
    expect(
      (
        await http()
          .get('/api/v1/subscriptions?status=INCOMPLETE&customerReference=nobody')
          .set(as())
      ).body.data,
    ).toEqual([]);

    const other = await createApp(t);
    for (const creds of [app.LIVE, other.TEST]) {
      const res = await http().get(`/api/v1/subscriptions/${a.subscriptionId}`).set(asApp(creds));
      expect(res.status).toBe(404);
      expect(
        (await http().get('/api/v1/subscriptions').set(asApp(creds))).body.data.map(
          (s: { id: number }) => s.id,
        ),
      ).not.toContain(a.subscriptionId);
    }
    const live = await advance(a.subscriptionId, app.LIVE);
    expect(live.status).toBe(403);
    expect(live.body.meta.errorCode).toBe('TEST_MODE_ONLY');

    const admin = await http()
      .get(`/api/v1/admin/subscriptions?applicationId=${app.id}&mode=TEST&status=INCOMPLETE`)
      .set(bearer(await superAdminToken(t)));
    expect(admin.status).toBe(200);
    expect(admin.body.data.map((s: { id: number }) => s.id)).toEqual(
      expect.arrayContaining([a.subscriptionId, b.subscriptionId]),
    );
    const byCustomer = await http()
      .get(`/api/v1/admin/subscriptions?customerReference=list-2&applicationId=${app.id}`)
      .set(bearer(await superAdminToken(t)));
    expect(byCustomer.body.data.map((s: { id: number }) => s.id)).toEqual([b.subscriptionId]);
    expect(byCustomer.body.data[0].customerReference).toBe('list-2');
  });
});
