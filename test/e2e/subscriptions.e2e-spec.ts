import { SubscriptionsService } from '../../src/subscriptions';
import { appFixture } from '../support/app-fixture';
import {
  attachBenefit,
  createBenefit,
  createPrice,
  createProduct,
  MONTHLY,
} from '../support/catalog-factories';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { createPayment, eventsOf, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/** Dhaka calendar date of the test clock plus `days`. */
const dhaka = (ms: number, days = 0) =>
  new Date(ms + 6 * 3600_000 + days * 86_400_000).toISOString().slice(0, 10);

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

  async function pay(invoiceId: number, customerReference: string, amountMinor: number) {
    const payment = await createPayment(t, app.TEST, {
      amountMinor,
      invoiceId,
      customerReference,
    });
    expect((await settle(t, app.TEST, payment.id)).status).toBe(200);
    return payment;
  }

  const getSub = async (id: number) =>
    (await http().get(`/api/v1/subscriptions/${id}`).set(as())).body.data;
  const advance = (id: number, creds = app.TEST) =>
    http().post(`/api/v1/test-helpers/subscriptions/${id}/advance`).set(asApp(creds)).send();
  const entitlements = async (ref: string) =>
    (await http().get(`/api/v1/customers/${ref}/entitlements`).set(as())).body.data as {
      lookupKey: string;
      subscriptionId: number | null;
      invoiceId: number | null;
    }[];
  const subEvents = async (subscriptionId: number) =>
    (await eventsOf(t, app.id, 'subscription.')).filter(
      (e) => e.data.subscription_id === subscriptionId,
    );

  it('a purchase without a trial is INCOMPLETE with no benefits until its first invoice is paid, then ACTIVE', async () => {
    const { product, benefit, price } = await plan();
    const bought = await buy(price.id, 'sub-a');
    expect(bought).toMatchObject({
      status: 'ISSUED',
      totalMinor: 50000,
      priceId: price.id,
      productId: product.id,
      subscriptionId: expect.any(Number),
    });
    const id = bought.subscriptionId;
    const today = dhaka(t.clock.nowMs());
    expect(await getSub(id)).toMatchObject({
      status: 'INCOMPLETE',
      productId: product.id,
      priceId: price.id,
      customerReference: 'sub-a',
      startDate: today,
      currentPeriodStart: null,
      nextBillingDate: null,
      trialEndDate: null,
      cancelAtPeriodEnd: false,
      openInvoiceId: bought.invoiceId,
      mode: 'TEST',
    });
    const invoice = (await http().get(`/api/v1/invoices/${bought.invoiceId}`).set(as())).body.data;
    expect(invoice).toMatchObject({ subscriptionId: id, dueDate: dhaka(t.clock.nowMs(), 7) });
    const page = await http()
      .get(new URL(bought.payableLink.payableUrl).pathname)
      .set('Accept-Language', 'en');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Subscription #${id}`);
    expect(await entitlements('sub-a')).toEqual([]);

    const payment = await pay(bought.invoiceId, 'sub-a', 50000);
    const active = await getSub(id);
    expect(active).toMatchObject({
      status: 'ACTIVE',
      currentPeriodStart: today,
      openInvoiceId: null,
    });
    expect(active.nextBillingDate > today).toBe(true);
    expect(await entitlements('sub-a')).toEqual([
      {
        benefitId: benefit.id,
        lookupKey: benefit.lookupKey,
        name: benefit.lookupKey,
        grantedAt: expect.any(String),
        subscriptionId: id,
        invoiceId: null,
      },
    ]);
    const events = await subEvents(id);
    expect(events.map((e) => e.type)).toEqual([
      'subscription.created',
      'subscription.payment_succeeded',
      'subscription.activated',
      'subscription.entitlements_updated',
    ]);
    expect(events[2].data).toMatchObject({
      subscription_id: id,
      status: 'activated',
      previous_status: 'incomplete',
      subscription_status: 'ACTIVE',
      price_id: price.id,
      product_id: product.id,
      customer_reference: 'sub-a',
      current_period_start: today,
      next_billing_date: active.nextBillingDate,
      invoice_id: bought.invoiceId,
      payment_id: payment.id,
    });
    expect(events[3].data).toEqual({
      subscription_id: id,
      customer_reference: 'sub-a',
      granted: [benefit.lookupKey],
      revoked: [],
      entitlements: [benefit.lookupKey],
    });
    // The subscription changed in the transaction that paid the invoice: one commit, in order.
    const all = (await eventsOf(t, app.id)).map((e) => e.type);
    const paidAt = all.lastIndexOf('invoice.paid');
    expect(all.slice(paidAt - 1, paidAt + 4)).toEqual([
      'payment.succeeded',
      'invoice.paid',
      'subscription.payment_succeeded',
      'subscription.activated',
      'subscription.entitlements_updated',
    ]);
  });

  it('entitlements follow the catalog: a benefit activated on, or attached to, a product with live subscriptions is granted to them', async () => {
    const { product, benefit, price } = await plan();
    const live = await buy(price.id, 'follow-live');
    await pay(live.invoiceId, 'follow-live', 50000);
    const gone = await buy(price.id, 'follow-gone');
    await pay(gone.invoiceId, 'follow-gone', 50000);
    expect(
      (await http().post(`/api/v1/subscriptions/${gone.subscriptionId}/cancel`).set(as()).send({}))
        .status,
    ).toBe(200);
    const held = async (ref: string) => (await entitlements(ref)).map((e) => e.lookupKey).sort();
    expect(await held('follow-live')).toEqual([benefit.lookupKey]);
    // Attached while inactive: nothing yet. Activated: granted to the live subscription only.
    const later = await createBenefit(t, app, `later-${seq}`);
    expect((await attachBenefit(t, product.id, later.id)).status).toBe(200);
    expect(await held('follow-live')).toEqual([benefit.lookupKey]);
    expect(
      (await http().post(`/api/v1/benefits/${later.id}/activate`).set(as()).send()).status,
    ).toBe(200);
    expect(await held('follow-live')).toEqual([benefit.lookupKey, `later-${seq}`].sort());
    expect(await held('follow-gone')).toEqual([]);
    // An active benefit attached: granted at once.
    const extra = await createBenefit(t, app, `extra-${seq}`, { activate: true });
    expect((await attachBenefit(t, product.id, extra.id)).status).toBe(200);
    expect(await held('follow-live')).toEqual(
      [benefit.lookupKey, `later-${seq}`, `extra-${seq}`].sort(),
    );
    const updates = (await subEvents(live.subscriptionId))
      .filter((e) => e.type === 'subscription.entitlements_updated')
      .map((e) => e.data.granted);
    expect(updates.slice(-2)).toEqual([[`later-${seq}`], [`extra-${seq}`]]);
  });

  it('trial: TRIALING with benefits at once, warned 3 days ahead, ACTIVE at trial end when paid; renewal; unpaid renewal -> PAST_DUE (benefits revoked); paid -> ACTIVE', async () => {
    const { benefit, price } = await plan({ ...MONTHLY, trialDays: 7 });
    const bought = await buy(price.id, 'sub-b');
    const id = bought.subscriptionId;
    const start = t.clock.nowMs();
    const trialEnd = dhaka(start, 7);
    expect(await getSub(id)).toMatchObject({ status: 'TRIALING', trialEndDate: trialEnd });
    expect((await entitlements('sub-b')).map((e) => e.lookupKey)).toEqual([benefit.lookupKey]);
    const first = (await http().get(`/api/v1/invoices/${bought.invoiceId}`).set(as())).body.data;
    expect(first.dueDate).toBe(trialEnd);

    // 1: the trial-end warning.
    expect((await advance(id)).status).toBe(200);
    expect((await subEvents(id)).map((e) => e.type)).toContain('subscription.trial_will_end');

    // Paid during the trial: still TRIALING until the trial ends, then ACTIVE from trial end.
    await pay(bought.invoiceId, 'sub-b', 50000);
    expect((await getSub(id)).status).toBe('TRIALING');
    const ended = (await advance(id)).body.data;
    expect(ended).toMatchObject({
      status: 'ACTIVE',
      currentPeriodStart: trialEnd,
      openInvoiceId: null,
    });
    const nextBilling = ended.nextBillingDate;

    // Period end: a renewal invoice for the next period, due 3 days later, naming product and period.
    const renewed = (await advance(id)).body.data;
    expect(renewed).toMatchObject({ status: 'ACTIVE', currentPeriodStart: nextBilling });
    expect(renewed.openInvoiceId).toEqual(expect.any(Number));
    const renewal = (await http().get(`/api/v1/invoices/${renewed.openInvoiceId}`).set(as())).body
      .data;
    expect(renewal).toMatchObject({ subscriptionId: id, totalMinor: 50000, status: 'ISSUED' });
    expect(renewal.lineItems[0].description).toContain(`(${nextBilling} to `);
    const due = new Date(Date.parse(`${nextBilling}T00:00:00Z`) + 3 * 86_400_000)
      .toISOString()
      .slice(0, 10);
    expect(renewal.dueDate).toBe(due);

    // Unpaid past its due date: PAST_DUE, benefits revoked.
    const pastDue = (await advance(id)).body.data;
    expect(pastDue.status).toBe('PAST_DUE');
    expect(await entitlements('sub-b')).toEqual([]);

    // Paid while PAST_DUE: ACTIVE again, benefits granted again, renewed.
    await pay(renewed.openInvoiceId, 'sub-b', 50000);
    expect((await getSub(id)).status).toBe('ACTIVE');
    expect((await entitlements('sub-b')).map((e) => e.lookupKey)).toEqual([benefit.lookupKey]);
    const types = (await subEvents(id)).map((e) => e.type);
    expect(types.slice(-5)).toEqual([
      'subscription.entitlements_updated',
      'subscription.payment_succeeded',
      'subscription.activated',
      'subscription.entitlements_updated',
      'subscription.renewed',
    ]);
    expect(types.filter((x) => x === 'subscription.past_due')).toHaveLength(1);
    const revoked = (await subEvents(id)).filter(
      (e) => e.type === 'subscription.entitlements_updated',
    )[1];
    expect(revoked.data).toMatchObject({
      granted: [],
      revoked: [benefit.lookupKey],
      entitlements: [],
    });
  });

  it('14 days past due: CANCELED with its open invoice voided; an unpaid trial ends PAST_DUE', async () => {
    const { price } = await plan({ ...MONTHLY, trialDays: 2 });
    const bought = await buy(price.id, 'sub-c');
    const id = bought.subscriptionId;
    // A 2-day trial is warned at once.
    expect((await subEvents(id)).map((e) => e.type)).toContain('subscription.trial_will_end');
    expect((await advance(id)).body.data.status).toBe('PAST_DUE');
    // The dunning reminders 1, 3 and 7 days overdue are stops of their own (decisions 16).
    for (let i = 0; i < 3; i++) expect((await advance(id)).body.data.status).toBe('PAST_DUE');
    const canceled = (await advance(id)).body.data;
    expect(canceled).toMatchObject({ status: 'CANCELED', openInvoiceId: null });
    expect(canceled.canceledAt).toEqual(expect.any(String));
    const invoice = (await http().get(`/api/v1/invoices/${bought.invoiceId}`).set(as())).body.data;
    expect(invoice.status).toBe('VOID');
    const last = (await subEvents(id)).filter((e) => e.type === 'subscription.canceled');
    expect(last[0].data).toMatchObject({
      status: 'canceled',
      previous_status: 'past_due',
      invoice_id: bought.invoiceId,
    });
    // Nothing left to advance.
    const again = await advance(id);
    expect(again.status).toBe(409);
    expect(again.body.meta.errorCode).toBe('INVALID_STATE');
  });

  it('INCOMPLETE unpaid 14 days after its due date is CANCELED', async () => {
    const { price } = await plan();
    const bought = await buy(price.id, 'sub-d');
    // Three dunning reminders first (1, 3 and 7 days overdue), then the cancellation.
    for (let i = 0; i < 3; i++)
      expect((await advance(bought.subscriptionId)).body.data.status).toBe('INCOMPLETE');
    const res = (await advance(bought.subscriptionId)).body.data;
    expect(res.status).toBe('CANCELED');
  });

  it('pause, resume and cancel (now and at period end); illegal moves are 409', async () => {
    const { benefit, price } = await plan();
    const bought = await buy(price.id, 'sub-e');
    const id = bought.subscriptionId;
    const post = (path: string, body: Record<string, unknown> = {}) =>
      http().post(`/api/v1/subscriptions/${id}/${path}`).set(as()).send(body);
    // INCOMPLETE cannot pause or resume.
    expect((await post('pause')).status).toBe(409);
    expect((await post('resume')).status).toBe(409);
    await pay(bought.invoiceId, 'sub-e', 50000);

    const paused = await post('pause');
    expect(paused.status).toBe(200);
    expect(paused.body.data.status).toBe('PAUSED');
    expect(await entitlements('sub-e')).toEqual([]);
    expect((await post('pause')).status).toBe(409);
    expect((await advance(id)).status).toBe(409);
    const resumed = await post('resume');
    expect(resumed.body.data.status).toBe('ACTIVE');
    expect((await entitlements('sub-e')).map((e) => e.lookupKey)).toEqual([benefit.lookupKey]);

    const flagged = await post('cancel', { atPeriodEnd: true });
    expect(flagged.body.data).toMatchObject({ status: 'ACTIVE', cancelAtPeriodEnd: true });
    const ended = (await advance(id)).body.data;
    expect(ended).toMatchObject({ status: 'CANCELED', openInvoiceId: null });
    // No renewal was issued for a period that was never to come.
    const invoices = await t.db.query(
      'SELECT count(*)::int AS n FROM invoices WHERE subscription_id = $1',
      [id],
    );
    expect(invoices.rows[0].n).toBe(1);
    expect((await post('cancel')).status).toBe(409);
    expect((await post('cancel', { atPeriodEnd: 'yes' })).status).toBe(400);

    const other = await buy(price.id, 'sub-f');
    const now = await http()
      .post(`/api/v1/subscriptions/${other.subscriptionId}/cancel`)
      .set(as())
      .send({ atPeriodEnd: false });
    expect(now.body.data.status).toBe('CANCELED');
    const inv = (await http().get(`/api/v1/invoices/${other.invoiceId}`).set(as())).body.data;
    expect(inv.status).toBe('VOID');
  });

  it('a failed payment of its invoice says subscription.payment_failed; resuming says subscription.resumed', async () => {
    const { price } = await plan({ ...MONTHLY, trialDays: 10 });
    const bought = await buy(price.id, 'sub-g');
    const id = bought.subscriptionId;
    const payment = await createPayment(t, app.TEST, {
      amountMinor: 50000,
      invoiceId: bought.invoiceId,
      customerReference: 'sub-g',
    });
    expect((await settle(t, app.TEST, payment.id, 'failed')).status).toBe(200);
    const failed = (await subEvents(id)).filter((e) => e.type === 'subscription.payment_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].data).toMatchObject({
      subscription_id: id,
      status: 'payment_failed',
      previous_status: 'trialing',
      subscription_status: 'TRIALING',
      invoice_id: bought.invoiceId,
      payment_id: payment.id,
      customer_reference: 'sub-g',
    });
    await http().post(`/api/v1/subscriptions/${id}/pause`).set(as()).send();
    const resumed = await http().post(`/api/v1/subscriptions/${id}/resume`).set(as()).send();
    expect(resumed.body.data.status).toBe('TRIALING');
    const types = (await subEvents(id)).map((e) => e.type);
    expect(types.slice(-4)).toEqual([
      'subscription.paused',
      'subscription.entitlements_updated',
      'subscription.resumed',
      'subscription.entitlements_updated',
    ]);
    const last = (await subEvents(id)).filter((e) => e.type === 'subscription.resumed')[0];
    expect(last.data).toMatchObject({
      status: 'resumed',
      previous_status: 'paused',
      subscription_status: 'TRIALING',
    });
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

  it('a paid one-time purchase grants its benefits for good', async () => {
    const product = await createProduct(t, app, 'TEST', { name: 'Lifetime' });
    const benefit = await createBenefit(t, app, 'lifetime-perk', { activate: true });
    await attachBenefit(t, product.id, benefit.id);
    const price = await createPrice(t, app, product.id, { type: 'ONE_TIME', amountMinor: 20000 });
    const bought = await buy(price.id, 'one-time-buyer');
    expect(bought.subscriptionId).toBeNull();
    expect(await entitlements('one-time-buyer')).toEqual([]);
    await pay(bought.invoiceId, 'one-time-buyer', 20000);
    expect(await entitlements('one-time-buyer')).toMatchObject([
      { lookupKey: 'lifetime-perk', invoiceId: bought.invoiceId, subscriptionId: null },
    ]);
    expect((await http().get('/api/v1/customers/nobody-here/entitlements').set(as())).status).toBe(
      404,
    );
    // For ever: a benefit the product gains later is held by those who bought it once.
    const added = await createBenefit(t, app, 'lifetime-extra', { activate: true });
    expect((await attachBenefit(t, product.id, added.id)).status).toBe(200);
    expect((await entitlements('one-time-buyer')).map((e) => e.lookupKey).sort()).toEqual([
      'lifetime-extra',
      'lifetime-perk',
    ]);
  });

  it('two app instances running the scheduler at once issue exactly one renewal invoice per period', async () => {
    const { price } = await plan();
    const subs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const bought = await buy(price.id, `race-${i}`);
      await pay(bought.invoiceId, `race-${i}`, 50000);
      subs.push(bought.subscriptionId);
    }
    // The wall clock moves past every period end; two replicas run the job at once.
    const replica = await createTestApp({ databaseUrl: t.databaseUrl });
    t.clock.advance(32 * 86_400_000);
    replica.clock.advance(32 * 86_400_000);
    const service = t.app.get(SubscriptionsService);
    const [x, y] = await Promise.all([
      service.runDueBatch(),
      replica.app.get(SubscriptionsService).runDueBatch(),
    ]);
    await replica.close();
    expect(x + y).toBeGreaterThanOrEqual(subs.length);
    const counts = await t.db.query(
      'SELECT subscription_id, count(*)::int AS n FROM invoices WHERE subscription_id = ANY($1) GROUP BY 1',
      [subs],
    );
    expect(counts.rows.map((r) => r.n)).toEqual(subs.map(() => 2));
    // Running again changes nothing: the next moment is ahead.
    expect(await service.runDueBatch()).toBe(0);
    t.clock.advance(-32 * 86_400_000);
  });

  it('month ends follow the anchor: 31 Jan -> 28 Feb -> 31 Mar (Asia/Dhaka dates)', async () => {
    const m = await createTestApp();
    try {
      const a = await createApp(m);
      const product = await createProduct(m, a, 'TEST', { name: 'Monthly' });
      const price = await createPrice(m, a, product.id, MONTHLY);
      // Noon in Dhaka on 31 January 2027.
      m.clock.advance(Date.parse('2027-01-31T06:00:00Z') - m.clock.nowMs());
      const bought = (
        await m
          .http()
          .post('/api/v1/purchases')
          .set(asApp(a.TEST))
          .send({ priceId: price.id, customerReference: 'month-end' })
      ).body.data;
      const payment = await createPayment(m, a.TEST, {
        amountMinor: 50000,
        invoiceId: bought.invoiceId,
        customerReference: 'month-end',
      });
      await settle(m, a.TEST, payment.id);
      const adv = () =>
        m
          .http()
          .post(`/api/v1/test-helpers/subscriptions/${bought.subscriptionId}/advance`)
          .set(asApp(a.TEST))
          .send();
      const get = async () =>
        (await m.http().get(`/api/v1/subscriptions/${bought.subscriptionId}`).set(asApp(a.TEST)))
          .body.data;
      expect(await get()).toMatchObject({
        currentPeriodStart: '2027-01-31',
        nextBillingDate: '2027-02-28',
      });
      expect((await adv()).body.data).toMatchObject({
        currentPeriodStart: '2027-02-28',
        nextBillingDate: '2027-03-31',
      });
      const renewal = (await get()).openInvoiceId;
      const inv = (await m.http().get(`/api/v1/invoices/${renewal}`).set(asApp(a.TEST))).body.data;
      expect(inv.lineItems[0].description).toBe('Monthly (2027-02-28 to 2027-03-30)');
      expect(inv.dueDate).toBe('2027-03-03');
    } finally {
      await m.close();
    }
  });
});
