import {
  attachBenefit,
  createBenefit,
  createPrice,
  createProduct,
  MONTHLY,
} from '../support/catalog-factories';
import { adminWith, asApp, bearer, createApp, CreatedApp } from '../support/factories';
import { createInvoice, createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The customers of an app (decisions section 20): GET /api/v1/customers,
 * searched by reference, name, email or phone and paged like every list,
 * and GET /api/v1/customers/{reference}, the customer with their invoices,
 * payments, subscriptions and entitlements, each bounded.
 */
describe('customers: the list and one customer', () => {
  let t: TestApp;
  let shop: CreatedApp;
  let other: CreatedApp;

  const get = (path: string, headers: Record<string, string> = asApp(shop.TEST)) =>
    t.http().get(path).set(headers);
  const refs = (res: { body: { data: { reference: string }[] } }) =>
    res.body.data.map((c) => c.reference);
  const enc = encodeURIComponent;

  beforeAll(async () => {
    t = await createTestApp();
    shop = await createApp(t, 'Customer Shop');
    other = await createApp(t, 'Other Shop');
    const people = [
      ['c-rahim', 'Rahim Uddin', 'rahim@example.com', '01711111111'],
      ['c-karim', 'Karim Ahmed', 'Karim.Ahmed@Example.com', '+8801811111111'],
      ['vip_100', '100%_Club', 'nasrin@example.org', undefined],
      ['a_b', 'Underscore', undefined, undefined],
      ['axb', 'Not underscore', undefined, undefined],
    ];
    for (const [ref, name, email, phone] of people)
      await createInvoice(t, shop.TEST, {
        customerReference: ref,
        customerName: name,
        ...(email ? { customerEmail: email } : {}),
        ...(phone ? { customerPhone: phone } : {}),
      });
    // The same reference in another app is another customer.
    await createInvoice(t, other.TEST, {
      customerReference: 'c-rahim',
      customerName: 'Other Rahim',
    });
  });
  afterAll(() => t.close());

  describe('GET /api/v1/customers', () => {
    it('lists the partition newest first, with exact totals and cursors', async () => {
      const all = await get('/api/v1/customers');
      expect(all.status).toBe(200);
      expect(refs(all)).toEqual(['axb', 'a_b', 'vip_100', 'c-karim', 'c-rahim']);
      expect(all.body.data[4]).toEqual({
        id: expect.any(Number),
        reference: 'c-rahim',
        name: 'Rahim Uddin',
        email: 'rahim@example.com',
        phone: '+8801711111111',
        mode: 'TEST',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(all.body.pagination.totalElements).toBe(5);
      const walked: string[] = [];
      let cursor: string | undefined;
      do {
        const res = await get(`/api/v1/customers?size=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.body.pagination.totalElements).toBe(5);
        walked.push(...refs(res));
        cursor = res.body.pagination.nextCursor;
      } while (cursor);
      expect(walked).toEqual(refs(all));
      expect(refs(await get('/api/v1/customers?sortBy=id&order=asc'))).toEqual(refs(all).reverse());
      const bad = await get('/api/v1/customers?sortBy=name');
      expect(bad.status).toBe(400);
      expect(bad.body.meta.details[0].field).toBe('sortBy');
    });

    it('q: the start of the reference, name or email in any letter case, or the phone in any form', async () => {
      const q = async (term: string) => refs(await get(`/api/v1/customers?q=${enc(term)}`));
      expect(await q('c-')).toEqual(['c-karim', 'c-rahim']);
      expect(await q('C-RAH')).toEqual(['c-rahim']);
      expect(await q('rahim')).toEqual(['c-rahim']);
      expect(await q('karim.ahmed@example')).toEqual(['c-karim']);
      expect(await q('KARIM')).toEqual(['c-karim']);
      expect(await q('01711111111')).toEqual(['c-rahim']);
      expect(await q('+880 1811-111111')).toEqual(['c-karim']);
      // Wildcards are literal: % and _ match only themselves.
      expect(await q('100%_c')).toEqual(['vip_100']);
      expect(await q('100_')).toEqual([]);
      expect(await q('a_')).toEqual(['a_b']);
      expect(await q('%')).toEqual([]);
      expect(await q('uddin')).toEqual([]);
      const res = await get(`/api/v1/customers?q=${'x'.repeat(201)}`);
      expect(res.status).toBe(400);
      expect(res.body.meta.details[0].field).toBe('q');
    });

    it('partition: the other mode and other apps see only their own', async () => {
      expect(refs(await get('/api/v1/customers', asApp(shop.LIVE)))).toEqual([]);
      expect(refs(await get('/api/v1/customers?q=c-', asApp(other.TEST)))).toEqual(['c-rahim']);
      expect((await get('/api/v1/customers?q=c-rahim', asApp(other.TEST))).body.data[0].name).toBe(
        'Other Rahim',
      );
      const res = await get('/api/v1/customers?mode=LIVE');
      expect(res.status).toBe(400);
    });

    it('admins acting on the app need invoices:read, within their apps', async () => {
      const acting = (token: string, appId: number) => ({
        ...bearer(token),
        'X-App-Id': String(appId),
        'X-Mode': 'TEST',
      });
      const reader = await adminWith(t, ['invoices:read'], { appIds: [shop.id] });
      expect(refs(await get('/api/v1/customers?q=c-rahim', acting(reader.token, shop.id)))).toEqual(
        ['c-rahim'],
      );
      expect((await get('/api/v1/customers/c-rahim', acting(reader.token, shop.id))).status).toBe(
        200,
      );
      expect((await get('/api/v1/customers', acting(reader.token, other.id))).status).toBe(404);
      const outsider = await adminWith(t, ['apps:read']);
      const denied = await get('/api/v1/customers', acting(outsider.token, shop.id));
      expect([denied.status, denied.body.meta.errorCode]).toEqual([403, 'PERMISSION_DENIED']);
      expect((await t.http().get('/api/v1/customers')).status).toBe(401);
    });
  });

  describe('GET /api/v1/customers/{reference}', () => {
    it('the customer with their invoices, payments, subscriptions and entitlements', async () => {
      const product = await createProduct(t, shop, 'TEST', { name: 'Monthly box' });
      const benefit = await createBenefit(t, shop, 'box-access', { activate: true });
      expect((await attachBenefit(t, product.id, benefit.id)).status).toBeLessThan(300);
      const price = await createPrice(t, shop, product.id, { ...MONTHLY, trialDays: 7 });
      const bought = await t
        .http()
        .post('/api/v1/purchases')
        .set(asApp(shop.TEST))
        .send({ priceId: price.id, customerReference: 'c-karim' });
      expect(bought.status).toBe(201);
      const payment = await createPayment(t, shop.TEST, {
        customerReference: 'c-karim',
        amountMinor: 25000,
      });
      expect((await settle(t, shop.TEST, payment.id)).status).toBe(200);

      const res = await get('/api/v1/customers/c-karim');
      expect(res.status).toBe(200);
      const c = res.body.data;
      expect(c).toMatchObject({
        reference: 'c-karim',
        name: 'Karim Ahmed',
        email: 'Karim.Ahmed@Example.com',
        phone: '+8801811111111',
        mode: 'TEST',
        invoicesTotal: 2,
        paymentsTotal: 1,
        subscriptionsTotal: 1,
        entitlementsTotal: 1,
      });
      expect(c.invoices.map((i: { id: number }) => i.id)).toEqual([
        bought.body.data.invoiceId,
        expect.any(Number),
      ]);
      expect(c.invoices[0]).not.toHaveProperty('lineItems');
      expect(c.payments.map((p: { id: number }) => p.id)).toEqual([payment.id]);
      expect(c.subscriptions).toEqual([
        expect.objectContaining({
          id: bought.body.data.subscriptionId,
          status: 'TRIALING',
          customerReference: 'c-karim',
        }),
      ]);
      expect(c.entitlements).toEqual([
        expect.objectContaining({ benefitId: benefit.id, lookupKey: 'box-access' }),
      ]);
    });

    it('each list is bounded (the newest 20) and comes with its total', async () => {
      const many = Array.from({ length: 22 }, () =>
        createInvoice(t, shop.TEST, { customerReference: 'c-busy' }),
      );
      const created = [];
      for (const p of many) created.push(await p);
      const res = await get('/api/v1/customers/c-busy');
      expect(res.body.data.invoicesTotal).toBe(22);
      expect(res.body.data.invoices).toHaveLength(20);
      const newest = await get('/api/v1/invoices?customerReference=c-busy&size=20');
      expect(res.body.data.invoices.map((i: { id: number }) => i.id)).toEqual(
        newest.body.data.map((i: { id: number }) => i.id),
      );
      expect(res.body.data).toMatchObject({
        payments: [],
        paymentsTotal: 0,
        subscriptions: [],
        subscriptionsTotal: 0,
        entitlements: [],
        entitlementsTotal: 0,
      });
    });

    it('an unknown reference, or one of another app or mode, is 404', async () => {
      for (const [path, creds] of [
        ['/api/v1/customers/nobody', shop.TEST],
        ['/api/v1/customers/c-rahim', shop.LIVE],
        [`/api/v1/customers/${enc('c-rahim x')}`, shop.TEST],
      ] as const) {
        const res = await get(path, asApp(creds));
        expect([path, res.status, res.body.meta.errorCode]).toEqual([
          path,
          404,
          'RESOURCE_NOT_FOUND',
        ]);
      }
      // Another app's c-rahim is its own.
      const theirs = await get('/api/v1/customers/c-rahim', asApp(other.TEST));
      expect(theirs.body.data.name).toBe('Other Rahim');
      expect(theirs.body.data.invoicesTotal).toBe(1);
    });
  });
});
