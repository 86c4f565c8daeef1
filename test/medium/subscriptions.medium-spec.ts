import { InvoicePaymentsService } from '../../src/billing';
import { BenefitsService } from '../../src/catalog/benefits.service';
import { type CreatePriceInput, PricesService } from '../../src/catalog/prices.service';
import { ProductsService } from '../../src/catalog/products.service';
import { CustomersService } from '../../src/customers';
import { EntitlementsService } from '../../src/entitlements';
import { InvoicesService } from '../../src/invoices';
import { PurchasesService } from '../../src/purchases';
import { SubscriptionsService, toSubscriptionDto } from '../../src/subscriptions';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { serviceFixture } from '../support/service-fixture';

const DAY_MS = 86_400_000;
const MONTHLY: CreatePriceInput = {
  type: 'RECURRING',
  amountMinor: 50000,
  interval: 'MONTH',
  intervalCount: 1,
};

/** Dhaka calendar date of `ms` plus `days`. */
const dhaka = (ms: number, days = 0) =>
  new Date(ms + 6 * 3600_000 + days * DAY_MS).toISOString().slice(0, 10);

/**
 * The subscriptions' lifecycle as services on a real database, with no HTTP
 * in between (test/e2e/subscriptions.e2e-spec.ts keeps the contract: statuses,
 * envelopes, 409s, lists, partitions): INCOMPLETE or TRIALING to ACTIVE,
 * renewals and their invoices, PAST_DUE and the 14-day cancellation, pause,
 * resume and cancel (cancelAtPeriodEnd surviving pause), entitlements granted
 * and revoked with the status and the catalog, the facts written to the
 * events outbox, Asia/Dhaka month ends, and one renewal per period however
 * many schedulers run.
 */
describe('subscriptions lifecycle (medium tier: services on a real database)', () => {
  const f = serviceFixture({ balancedLedger: true, appName: 'Subscriptions' });
  let seq = 0;
  // Tests that move the wall clock put it back.
  afterEach(() => f.c.clock.reset());

  const subs = () => f.get(SubscriptionsService);
  const benefits = () => f.get(BenefitsService);
  const products = () => f.get(ProductsService);

  async function newBenefit(lookupKey: string, activate = true) {
    const b = await benefits().create(f.scope, { lookupKey, name: lookupKey });
    return activate ? benefits().activate(f.scope, b.id) : b;
  }

  /** A product with one active benefit and a RECURRING price. */
  async function plan(terms: Partial<CreatePriceInput> = {}, name?: string) {
    const { product } = await products().create(f.scope, { name: name ?? `Plan ${++seq}` });
    const benefit = await newBenefit(`perk-${seq}`);
    await products().attachBenefit(f.scope, product.id, benefit.id);
    const price = await f.get(PricesService).create(f.scope, product.id, { ...MONTHLY, ...terms });
    return { product, benefit, price };
  }

  async function buy(priceId: number, customerReference: string) {
    const bought = await f.get(PurchasesService).purchase(f.scope, { priceId, customerReference });
    return { ...bought, subscriptionId: bought.subscriptionId! };
  }

  async function pay(
    invoiceId: number,
    amountMinor = 50000,
    outcome: 'succeeded' | 'failed' = 'succeeded',
  ) {
    const payment = await f
      .get(InvoicePaymentsService)
      .createPayment(f.scope, { amountMinor, invoiceId });
    const settled = await f.get(TestHelpersService).settlePayment(f.scope, payment.id, outcome);
    expect(settled.status).toBe(outcome === 'succeeded' ? 'SUCCEEDED' : 'FAILED');
    return payment;
  }

  /** The subscription as its response shows it. */
  const sub = async (id: number) => toSubscriptionDto(await subs().get(f.scope, id));
  const advance = async (id: number) => toSubscriptionDto(await subs().advance(f.scope, id));
  const invoice = (id: number) => f.get(InvoicesService).get(f.scope, id);
  /** The subscription's invoices, newest first, as rows. */
  const invoicesOf = async (subscriptionId: number) =>
    (
      await f.c.db.query(
        `SELECT id::int AS id, status FROM invoices WHERE subscription_id = $1 ORDER BY id DESC`,
        [subscriptionId],
      )
    ).rows as { id: number; status: string }[];
  /** What the customer holds now, as the entitlements route lists it. */
  async function entitlements(ref: string) {
    const customer = await f.get(CustomersService).getByExternalId(f.scope, ref);
    const held = await f.get(EntitlementsService).heldBy(f.scope, customer.id);
    return held.map(({ entitlement: e, benefit: b }) => ({
      benefitId: b.id,
      lookupKey: b.lookupKey,
      name: b.name,
      grantedAt: e.grantedAt.toISOString(),
      subscriptionId: e.subscriptionId,
      invoiceId: e.invoiceId,
    }));
  }
  const held = async (ref: string) => (await entitlements(ref)).map((e) => e.lookupKey).sort();
  /** The app's events (the outbox), oldest first. */
  const eventsOf = async (prefix = '') =>
    (
      await f.c.db.query(
        `SELECT id, type, data FROM events WHERE app_id = $1 AND type LIKE $2 ORDER BY id`,
        [f.scope.appId, `${prefix}%`],
      )
    ).rows as { id: number; type: string; data: any }[];
  const subEvents = async (subscriptionId: number) =>
    (await eventsOf('subscription.')).filter((e) => e.data.subscription_id === subscriptionId);
  const invalidState = { code: 'INVALID_STATE' };

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
    const today = dhaka(f.c.clock.nowMs());
    expect(await sub(id)).toMatchObject({
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
    const first = (await invoice(bought.invoiceId)).invoice;
    expect(first).toMatchObject({
      subscriptionId: id,
      dueDate: dhaka(f.c.clock.nowMs(), 7),
    });
    expect(await entitlements('sub-a')).toEqual([]);

    const payment = await pay(bought.invoiceId);
    const active = await sub(id);
    expect(active).toMatchObject({
      status: 'ACTIVE',
      currentPeriodStart: today,
      openInvoiceId: null,
    });
    expect(active.nextBillingDate! > today).toBe(true);
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
    const all = (await eventsOf()).map((e) => e.type);
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
    await pay(live.invoiceId);
    const gone = await buy(price.id, 'follow-gone');
    await pay(gone.invoiceId);
    expect((await subs().cancel(f.scope, gone.subscriptionId, false)).subscription.status).toBe(
      'CANCELED',
    );
    expect(await held('follow-live')).toEqual([benefit.lookupKey]);
    // Attached while inactive: nothing yet. Activated: granted to the live subscription only.
    const later = await newBenefit(`later-${seq}`, false);
    await products().attachBenefit(f.scope, product.id, later.id);
    expect(await held('follow-live')).toEqual([benefit.lookupKey]);
    await benefits().activate(f.scope, later.id);
    expect(await held('follow-live')).toEqual([benefit.lookupKey, `later-${seq}`].sort());
    expect(await held('follow-gone')).toEqual([]);
    // An active benefit attached: granted at once.
    const extra = await newBenefit(`extra-${seq}`);
    await products().attachBenefit(f.scope, product.id, extra.id);
    expect(await held('follow-live')).toEqual(
      [benefit.lookupKey, `later-${seq}`, `extra-${seq}`].sort(),
    );
    const updates = (await subEvents(live.subscriptionId))
      .filter((e) => e.type === 'subscription.entitlements_updated')
      .map((e) => e.data.granted);
    expect(updates.slice(-2)).toEqual([[`later-${seq}`], [`extra-${seq}`]]);
  });

  it('trial: TRIALING with benefits at once, warned 3 days ahead, ACTIVE at trial end when paid; renewal; unpaid renewal -> PAST_DUE (benefits revoked); paid -> ACTIVE', async () => {
    const { benefit, price } = await plan({ trialDays: 7 });
    const bought = await buy(price.id, 'sub-b');
    const id = bought.subscriptionId;
    const trialEnd = dhaka(f.c.clock.nowMs(), 7);
    expect(await sub(id)).toMatchObject({ status: 'TRIALING', trialEndDate: trialEnd });
    expect(await held('sub-b')).toEqual([benefit.lookupKey]);
    expect((await invoice(bought.invoiceId)).invoice.dueDate).toBe(trialEnd);

    // 1: the trial-end warning.
    await advance(id);
    expect((await subEvents(id)).map((e) => e.type)).toContain('subscription.trial_will_end');

    // Paid during the trial: still TRIALING until the trial ends, then ACTIVE from trial end.
    await pay(bought.invoiceId);
    expect((await sub(id)).status).toBe('TRIALING');
    const ended = await advance(id);
    expect(ended).toMatchObject({
      status: 'ACTIVE',
      currentPeriodStart: trialEnd,
      openInvoiceId: null,
    });
    const nextBilling = ended.nextBillingDate!;

    // Period end: a renewal invoice for the next period, due 3 days later, naming product and period.
    const renewed = await advance(id);
    expect(renewed).toMatchObject({ status: 'ACTIVE', currentPeriodStart: nextBilling });
    expect(renewed.openInvoiceId).toEqual(expect.any(Number));
    const renewal = await invoice(renewed.openInvoiceId!);
    expect(renewal.invoice).toMatchObject({
      subscriptionId: id,
      totalMinor: 50000,
      status: 'ISSUED',
    });
    expect(renewal.lines[0].description).toContain(`(${nextBilling} to `);
    const due = new Date(Date.parse(`${nextBilling}T00:00:00Z`) + 3 * DAY_MS)
      .toISOString()
      .slice(0, 10);
    expect(renewal.invoice.dueDate).toBe(due);

    // Unpaid past its due date: PAST_DUE, benefits revoked.
    expect((await advance(id)).status).toBe('PAST_DUE');
    expect(await entitlements('sub-b')).toEqual([]);

    // Paid while PAST_DUE: ACTIVE again, benefits granted again, renewed.
    await pay(renewed.openInvoiceId!);
    expect((await sub(id)).status).toBe('ACTIVE');
    expect(await held('sub-b')).toEqual([benefit.lookupKey]);
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
    const { price } = await plan({ trialDays: 2 });
    const bought = await buy(price.id, 'sub-c');
    const id = bought.subscriptionId;
    // A 2-day trial is warned at once.
    expect((await subEvents(id)).map((e) => e.type)).toContain('subscription.trial_will_end');
    expect((await advance(id)).status).toBe('PAST_DUE');
    // The dunning reminders 1, 3 and 7 days overdue are stops of their own (decisions 16).
    for (let i = 0; i < 3; i++) expect((await advance(id)).status).toBe('PAST_DUE');
    const canceled = await advance(id);
    expect(canceled).toMatchObject({ status: 'CANCELED', openInvoiceId: null });
    expect(canceled.canceledAt).toEqual(expect.any(String));
    expect((await invoice(bought.invoiceId)).invoice.status).toBe('VOID');
    const last = (await subEvents(id)).filter((e) => e.type === 'subscription.canceled');
    expect(last[0].data).toMatchObject({
      status: 'canceled',
      previous_status: 'past_due',
      invoice_id: bought.invoiceId,
    });
    // Cancelled 14 days after it fell past due (the trial's end, midnight in Dhaka).
    const trialEnd = (await sub(id)).trialEndDate!;
    expect(Date.parse(canceled.canceledAt!) - Date.parse(`${trialEnd}T00:00:00+06:00`)).toBe(
      14 * DAY_MS,
    );
    // Nothing left to advance.
    await expect(subs().advance(f.scope, id)).rejects.toMatchObject(invalidState);
  });

  it('INCOMPLETE unpaid 14 days after its due date is CANCELED', async () => {
    const { price } = await plan();
    const bought = await buy(price.id, 'sub-d');
    // Three dunning reminders first (1, 3 and 7 days overdue), then the cancellation.
    for (let i = 0; i < 3; i++)
      expect((await advance(bought.subscriptionId)).status).toBe('INCOMPLETE');
    const res = await advance(bought.subscriptionId);
    expect(res.status).toBe('CANCELED');
    // Overdue from the day after its due date (midnight in Dhaka), cancelled 14 days later.
    const due = (await invoice(bought.invoiceId)).invoice.dueDate;
    const overdueSince = Date.parse(`${due}T00:00:00+06:00`) + DAY_MS;
    expect(Date.parse(res.canceledAt!) - overdueSince).toBe(14 * DAY_MS);
  });

  it('pause, resume and cancel (now and at period end); illegal moves are refused (INVALID_STATE)', async () => {
    const { benefit, price } = await plan();
    const bought = await buy(price.id, 'sub-e');
    const id = bought.subscriptionId;
    // INCOMPLETE cannot pause or resume.
    await expect(subs().pause(f.scope, id)).rejects.toMatchObject(invalidState);
    await expect(subs().resume(f.scope, id)).rejects.toMatchObject(invalidState);
    await pay(bought.invoiceId);

    const paused = toSubscriptionDto(await subs().pause(f.scope, id));
    expect(paused.status).toBe('PAUSED');
    expect(await entitlements('sub-e')).toEqual([]);
    await expect(subs().pause(f.scope, id)).rejects.toMatchObject(invalidState);
    await expect(subs().advance(f.scope, id)).rejects.toMatchObject(invalidState);
    const resumed = toSubscriptionDto(await subs().resume(f.scope, id));
    expect(resumed.status).toBe('ACTIVE');
    expect(await held('sub-e')).toEqual([benefit.lookupKey]);

    const flagged = toSubscriptionDto(await subs().cancel(f.scope, id, true));
    expect(flagged).toMatchObject({ status: 'ACTIVE', cancelAtPeriodEnd: true });
    const ended = await advance(id);
    expect(ended).toMatchObject({ status: 'CANCELED', openInvoiceId: null });
    // No renewal was issued for a period that was never to come.
    expect(await invoicesOf(id)).toHaveLength(1);
    await expect(subs().cancel(f.scope, id, false)).rejects.toMatchObject(invalidState);

    const other = await buy(price.id, 'sub-f');
    const now = toSubscriptionDto(await subs().cancel(f.scope, other.subscriptionId, false));
    expect(now.status).toBe('CANCELED');
    expect((await invoice(other.invoiceId)).invoice.status).toBe('VOID');
  });

  it('a failed payment of its invoice says subscription.payment_failed; resuming says subscription.resumed', async () => {
    const { price } = await plan({ trialDays: 10 });
    const bought = await buy(price.id, 'sub-g');
    const id = bought.subscriptionId;
    const payment = await pay(bought.invoiceId, 50000, 'failed');
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
    await subs().pause(f.scope, id);
    expect((await subs().resume(f.scope, id)).subscription.status).toBe('TRIALING');
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

  describe('subscription edges (issue 43)', () => {
    /** The wall clock moves ahead (the scheduler's view); `afterEach` puts it back. */
    const wallClockAhead = (days: number) => f.c.clock.advance(days * DAY_MS);

    it('cancelAtPeriodEnd survives pause and resume: the period ended while paused, so resume cancels; no renewal invoice', async () => {
      const { price } = await plan();
      const s = await buy(price.id, `edge-${seq}`);
      await pay(s.invoiceId);
      await subs().cancel(f.scope, s.subscriptionId, true);
      expect(toSubscriptionDto(await subs().pause(f.scope, s.subscriptionId))).toMatchObject({
        status: 'PAUSED',
        cancelAtPeriodEnd: true,
      });
      wallClockAhead(40);
      const resumed = toSubscriptionDto(await subs().resume(f.scope, s.subscriptionId));
      expect(resumed).toMatchObject({ status: 'CANCELED', cancelAtPeriodEnd: false });
      expect((await invoicesOf(s.subscriptionId)).map((i) => i.status)).toEqual(['PAID']);
    });

    it('cancelAtPeriodEnd survives pause and resume within the period: CANCELED at its end, never renewed', async () => {
      const { price } = await plan();
      const s = await buy(price.id, `edge-${seq}`);
      await pay(s.invoiceId);
      await subs().cancel(f.scope, s.subscriptionId, true);
      await subs().pause(f.scope, s.subscriptionId);
      expect(toSubscriptionDto(await subs().resume(f.scope, s.subscriptionId))).toMatchObject({
        status: 'ACTIVE',
        cancelAtPeriodEnd: true,
      });
      expect((await advance(s.subscriptionId)).status).toBe('CANCELED');
      expect(await invoicesOf(s.subscriptionId)).toHaveLength(1);
    });

    it('a daily plan paused with its renewal open, resumed after its period ended: one open invoice, voided on cancel', async () => {
      const { price } = await plan({ interval: 'DAY' });
      const s = await buy(price.id, `edge-${seq}`);
      await pay(s.invoiceId);
      await advance(s.subscriptionId); // the period ends: a renewal invoice
      expect((await invoicesOf(s.subscriptionId)).map((i) => i.status)).toEqual(['ISSUED', 'PAID']);
      await subs().pause(f.scope, s.subscriptionId);
      wallClockAhead(2);
      expect((await subs().resume(f.scope, s.subscriptionId)).subscription.status).toBe('ACTIVE');
      const open = (await invoicesOf(s.subscriptionId)).filter((i) => i.status === 'ISSUED');
      expect(open).toHaveLength(1);
      expect((await sub(s.subscriptionId)).openInvoiceId).toBe(open[0].id);
      await subs().cancel(f.scope, s.subscriptionId, false);
      expect((await invoicesOf(s.subscriptionId)).map((i) => i.status)).toEqual(['VOID', 'PAID']);
    });

    it('a trial paused and resumed on its end day, its first invoice unpaid, is PAST_DUE, not ACTIVE', async () => {
      const { price } = await plan({ trialDays: 7 });
      const s = await buy(price.id, `edge-${seq}`);
      const trialing = await sub(s.subscriptionId);
      expect(trialing.status).toBe('TRIALING');
      // While TRIALING, nextBillingDate is the trial end (the first invoice's due date).
      expect(trialing.nextBillingDate).toBe(trialing.trialEndDate);
      expect(trialing.nextBillingDate).toBe((await invoice(s.invoiceId)).invoice.dueDate);
      await subs().pause(f.scope, s.subscriptionId);
      wallClockAhead(7);
      expect((await subs().resume(f.scope, s.subscriptionId)).subscription.status).toBe('PAST_DUE');
    });

    it('a renewal paid while PAUSED says subscription.renewed', async () => {
      const { price } = await plan();
      const s = await buy(price.id, `edge-${seq}`);
      await pay(s.invoiceId);
      await advance(s.subscriptionId);
      const renewal = (await invoicesOf(s.subscriptionId)).find((i) => i.status === 'ISSUED')!;
      await subs().pause(f.scope, s.subscriptionId);
      await pay(renewal.id);
      const renewed = (await subEvents(s.subscriptionId)).filter(
        (e) => e.type === 'subscription.renewed',
      );
      expect(renewed.map((e) => e.data.invoice_id)).toEqual([renewal.id]);
      expect((await sub(s.subscriptionId)).status).toBe('PAUSED');
    });
  });

  it('two schedulers running at once issue exactly one renewal invoice per period', async () => {
    const { price } = await plan();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const bought = await buy(price.id, `race-${i}`);
      await pay(bought.invoiceId);
      ids.push(bought.subscriptionId);
    }
    // The wall clock moves past every period end; two schedulers run the batch at once,
    // each subscription in a transaction of its own (as two replicas would: in one
    // process, two Nest apps share nestjs-cls's static TransactionHost anyway).
    f.c.clock.advance(32 * DAY_MS);
    const [x, y] = await Promise.all([subs().runDueBatch(), subs().runDueBatch()]);
    expect(x + y).toBeGreaterThanOrEqual(ids.length);
    const counts = await f.c.db.query(
      'SELECT subscription_id, count(*)::int AS n FROM invoices WHERE subscription_id = ANY($1) GROUP BY 1',
      [ids],
    );
    expect(counts.rows.map((r) => r.n)).toEqual(ids.map(() => 2));
    // Running again changes nothing: the next moment is ahead.
    expect(await subs().runDueBatch()).toBe(0);
  });

  it('month ends follow the anchor: 31 Jan -> 28 Feb -> 31 Mar (Asia/Dhaka dates)', async () => {
    seq++;
    const { price } = await plan({}, 'Monthly');
    // Noon in Dhaka on 31 January 2027.
    f.c.clock.advance(Date.parse('2027-01-31T06:00:00Z') - f.c.clock.nowMs());
    const bought = await buy(price.id, 'month-end');
    await pay(bought.invoiceId);
    expect(await sub(bought.subscriptionId)).toMatchObject({
      currentPeriodStart: '2027-01-31',
      nextBillingDate: '2027-02-28',
    });
    expect(await advance(bought.subscriptionId)).toMatchObject({
      currentPeriodStart: '2027-02-28',
      nextBillingDate: '2027-03-31',
    });
    const renewal = await invoice((await sub(bought.subscriptionId)).openInvoiceId!);
    expect(renewal.lines[0].description).toBe('Monthly (2027-02-28 to 2027-03-30)');
    expect(renewal.invoice.dueDate).toBe('2027-03-03');
  });
});
