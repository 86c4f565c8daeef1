import { createPrice, createProduct, MONTHLY } from '../support/catalog-factories';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { withWriteHeld } from '../support/faults';
import { expectBalancedLedger } from '../support/ledger';
import { createPayment, eventsOf, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

const DAY_MS = 86_400_000;

/**
 * Issue 43, findings 7 and 13 and the subscription lows: pause and resume
 * keep `cancelAtPeriodEnd`; resuming never leaves two open invoices; a trial
 * resumed on its end day with its first invoice unpaid is PAST_DUE; a
 * renewal paid while PAUSED says `subscription.renewed`; TRIALING shows the
 * trial end as `nextBillingDate`; `GET /invoices?subscriptionId=` filters.
 */
describe('subscription edges', () => {
  let t: TestApp;
  let app: CreatedApp;
  let seq = 0;
  /** Prices made before the clock jumps ahead (the admin session lasts an hour). */
  const prices: Record<'monthly' | 'daily' | 'trial', number> = { monthly: 0, daily: 0, trial: 0 };
  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    const terms = {
      monthly: MONTHLY,
      daily: { ...MONTHLY, interval: 'DAY' },
      trial: { ...MONTHLY, trialDays: 7 },
    };
    for (const [kind, price] of Object.entries(terms)) {
      const product = await createProduct(t, app, 'TEST', { name: `Edge plan ${kind}` });
      prices[kind as keyof typeof prices] = (await createPrice(t, app, product.id, price)).id;
    }
  });
  afterEach(() => expectBalancedLedger(t.db));
  afterAll(() => t.close());

  const http = () => t.http();
  async function subscribe(kind: keyof typeof prices) {
    const ref = `edge-${++seq}`;
    const res = await http()
      .post('/api/v1/purchases')
      .set(asApp(app.TEST))
      .send({ priceId: prices[kind], customerReference: ref });
    expect(res.status).toBe(201);
    return {
      ref,
      subscriptionId: res.body.data.subscriptionId as number,
      invoice: { id: res.body.data.invoiceId as number },
    };
  }
  async function pay(invoiceId: number, customerReference: string, amountMinor: number) {
    const payment = await createPayment(t, app.TEST, { amountMinor, invoiceId, customerReference });
    expect((await settle(t, app.TEST, payment.id)).status).toBe(200);
  }
  const sub = async (id: number) =>
    (await http().get(`/api/v1/subscriptions/${id}`).set(asApp(app.TEST))).body.data;
  const post = (id: number, action: string, body: object = {}) =>
    http().post(`/api/v1/subscriptions/${id}/${action}`).set(asApp(app.TEST)).send(body);
  const advance = (id: number) =>
    http().post(`/api/v1/test-helpers/subscriptions/${id}/advance`).set(asApp(app.TEST)).send();
  const invoicesOf = async (id: number) => {
    const res = await http()
      .get(`/api/v1/invoices?subscriptionId=${id}&size=100`)
      .set(asApp(app.TEST));
    expect(res.status).toBe(200);
    return res.body.data as { id: number; status: string; subscriptionId: number }[];
  };

  it('cancelAtPeriodEnd survives pause and resume: the period ended while paused, so resume cancels; no renewal invoice', async () => {
    const s = await subscribe('monthly');
    await pay(s.invoice.id, s.ref, 50000);
    expect((await post(s.subscriptionId, 'cancel', { atPeriodEnd: true })).status).toBe(200);
    expect((await post(s.subscriptionId, 'pause')).body.data).toMatchObject({
      status: 'PAUSED',
      cancelAtPeriodEnd: true,
    });
    t.clock.advance(40 * DAY_MS);
    const resumed = await post(s.subscriptionId, 'resume');
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ status: 'CANCELED', cancelAtPeriodEnd: false });
    expect((await invoicesOf(s.subscriptionId)).map((i) => i.status)).toEqual(['PAID']);
  });

  it('cancelAtPeriodEnd survives pause and resume within the period: CANCELED at its end, never renewed', async () => {
    const s = await subscribe('monthly');
    await pay(s.invoice.id, s.ref, 50000);
    expect((await post(s.subscriptionId, 'cancel', { atPeriodEnd: true })).status).toBe(200);
    expect((await post(s.subscriptionId, 'pause')).status).toBe(200);
    expect((await post(s.subscriptionId, 'resume')).body.data).toMatchObject({
      status: 'ACTIVE',
      cancelAtPeriodEnd: true,
    });
    expect((await advance(s.subscriptionId)).body.data.status).toBe('CANCELED');
    expect((await invoicesOf(s.subscriptionId)).length).toBe(1);
  });

  it('a daily plan paused with its renewal open, resumed after its period ended: one open invoice, voided on cancel', async () => {
    const s = await subscribe('daily');
    await pay(s.invoice.id, s.ref, 50000);
    expect((await advance(s.subscriptionId)).status).toBe(200); // the period ends: a renewal invoice
    expect((await invoicesOf(s.subscriptionId)).map((i) => i.status)).toEqual(['ISSUED', 'PAID']);
    expect((await post(s.subscriptionId, 'pause')).status).toBe(200);
    t.clock.advance(2 * DAY_MS);
    expect((await post(s.subscriptionId, 'resume')).body.data.status).toBe('ACTIVE');
    const open = (await invoicesOf(s.subscriptionId)).filter((i) => i.status === 'ISSUED');
    expect(open.length).toBe(1);
    expect((await sub(s.subscriptionId)).openInvoiceId).toBe(open[0].id);
    expect((await post(s.subscriptionId, 'cancel', { atPeriodEnd: false })).status).toBe(200);
    expect((await invoicesOf(s.subscriptionId)).map((i) => i.status)).toEqual(['VOID', 'PAID']);
  });

  it('a trial paused and resumed on its end day, its first invoice unpaid, is PAST_DUE, not ACTIVE', async () => {
    const s = await subscribe('trial');
    const trialing = await sub(s.subscriptionId);
    expect(trialing.status).toBe('TRIALING');
    // While TRIALING, nextBillingDate is the trial end (the first invoice's due date).
    expect(trialing.nextBillingDate).toBe(trialing.trialEndDate);
    const first = await http().get(`/api/v1/invoices/${s.invoice.id}`).set(asApp(app.TEST));
    expect(trialing.nextBillingDate).toBe(first.body.data.dueDate);
    expect((await post(s.subscriptionId, 'pause')).status).toBe(200);
    t.clock.advance(7 * DAY_MS);
    const resumed = await post(s.subscriptionId, 'resume');
    expect(resumed.body.data.status).toBe('PAST_DUE');
  });

  it('a renewal paid while PAUSED says subscription.renewed', async () => {
    const s = await subscribe('monthly');
    await pay(s.invoice.id, s.ref, 50000);
    expect((await advance(s.subscriptionId)).status).toBe(200);
    const renewal = (await invoicesOf(s.subscriptionId)).find((i) => i.status === 'ISSUED')!;
    expect((await post(s.subscriptionId, 'pause')).status).toBe(200);
    await pay(renewal.id, s.ref, 50000);
    const renewed = (await eventsOf(t, app.id, 'subscription.renewed')).filter(
      (e) => e.data.subscription_id === s.subscriptionId,
    );
    expect(renewed.map((e) => e.data.invoice_id)).toEqual([renewal.id]);
    expect((await sub(s.subscriptionId)).status).toBe('PAUSED');
  });

  it('a cancel racing a capture of the subscription`s invoice: both answer (no 500, no deadlock left unanswered)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const s = await subscribe('monthly');
      const payment = await createPayment(t, app.TEST, {
        amountMinor: 50000,
        invoiceId: s.invoice.id,
        customerReference: s.ref,
      });
      const [cancelled, settled] = await Promise.all([
        post(s.subscriptionId, 'cancel', { atPeriodEnd: false }),
        settle(t, app.TEST, payment.id),
      ]);
      statuses.push(cancelled.status, settled.status);
      const after = await sub(s.subscriptionId);
      const [invoice] = await invoicesOf(s.subscriptionId);
      // Whichever came first, the books agree: paid and cancelled, or voided and the capture refunded.
      if (invoice.status === 'VOID')
        expect(settled.status === 200 || settled.status === 409).toBe(true);
      else expect(invoice.status).toBe('PAID');
      expect(['CANCELED', 'ACTIVE']).toContain(after.status);
    }
    expect(statuses.filter((x) => x >= 500)).toEqual([]);
  });

  it('lock order: a cancel meeting a capture of its invoice waits for the payment, holding no subscription lock', async () => {
    const s = await subscribe('monthly');
    const payment = await createPayment(t, app.TEST, {
      amountMinor: 50000,
      invoiceId: s.invoice.id,
      customerReference: s.ref,
    });
    const answers = await withWriteHeld(t.db, 'invoices', 'amount_paid_minor', async (stopped) => {
      // The capture holds the payment and the invoice, and waits before the subscription.
      const settling = settle(t, app.TEST, payment.id).then((r) => r);
      expect(await stopped(settling)).not.toBeNull();
      const cancelling = post(s.subscriptionId, 'cancel', { atPeriodEnd: false }).then((r) => r);
      for (let waiting = 0; waiting === 0;) {
        await new Promise((ok) => setTimeout(ok, 10));
        waiting = (
          await t.db.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()
                AND wait_event_type = 'Lock' AND wait_event <> 'advisory'`,
          )
        ).rows[0].n;
      }
      // The cancel waits in the lock order (payments, invoice, subscription): the
      // subscription is free, so the capture, once let go, takes it without a deadlock.
      const probe = await t.db.connect();
      try {
        await probe.query('BEGIN');
        const free = await probe
          .query('SELECT id FROM subscriptions WHERE id = $1 FOR UPDATE NOWAIT', [s.subscriptionId])
          .then(
            () => true,
            (err: { code?: string }) => err.code,
          );
        expect(free).toBe(true);
      } finally {
        await probe.query('ROLLBACK');
        probe.release();
      }
      return { settling, cancelling }; // awaited once the capture is let go
    });
    const [settled, cancelled] = await Promise.all([answers.settling, answers.cancelling]);
    expect(settled.status).toBe(200);
    expect(cancelled.status).toBe(200);
    // The capture came first: the invoice is paid, then the subscription cancelled.
    const [invoice] = await invoicesOf(s.subscriptionId);
    expect(invoice.status).toBe('PAID');
    expect((await sub(s.subscriptionId)).status).toBe('CANCELED');
  });

  it('GET /invoices?subscriptionId= lists only that subscription`s invoices; a bad value is 400', async () => {
    const a = await subscribe('monthly');
    const b = await subscribe('monthly');
    expect((await invoicesOf(a.subscriptionId)).map((i) => i.id)).toEqual([a.invoice.id]);
    expect((await invoicesOf(b.subscriptionId)).map((i) => i.subscriptionId)).toEqual([
      b.subscriptionId,
    ]);
    const bad = await http().get('/api/v1/invoices?subscriptionId=abc').set(asApp(app.TEST));
    expect(bad.status).toBe(400);
  });
});
