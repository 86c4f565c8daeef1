import { createPrice, createProduct, MONTHLY } from '../support/catalog-factories';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { withWriteHeld } from '../support/faults';
import { expectBalancedLedger } from '../support/ledger';
import { createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 43, what only HTTP shows: a cancel racing a capture of the
 * subscription's invoice through the API (both answer, in the lock order);
 * `GET /invoices?subscriptionId=` filters. The edges' rules (pause and
 * resume keep `cancelAtPeriodEnd`; resuming never leaves two open invoices;
 * a trial resumed on its end day with its first invoice unpaid is PAST_DUE;
 * a renewal paid while PAUSED says `subscription.renewed`; TRIALING shows
 * the trial end as `nextBillingDate`) are proven as services in
 * test/medium/subscriptions.medium-spec.ts ("subscription edges").
 */
describe('subscription edges', () => {
  let t: TestApp;
  let app: CreatedApp;
  let seq = 0;
  /** The plan every test subscribes to (a monthly price). */
  let monthly = 0;
  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    const product = await createProduct(t, app, 'TEST', { name: 'Edge plan monthly' });
    monthly = (await createPrice(t, app, product.id, MONTHLY)).id;
  });
  afterEach(() => expectBalancedLedger(t.db));
  afterAll(() => t.close());

  const http = () => t.http();
  async function subscribe() {
    const ref = `edge-${++seq}`;
    const res = await http()
      .post('/api/v1/purchases')
      .set(asApp(app.TEST))
      .send({ priceId: monthly, customerReference: ref });
    expect(res.status).toBe(201);
    return {
      ref,
      subscriptionId: res.body.data.subscriptionId as number,
      invoice: { id: res.body.data.invoiceId as number },
    };
  }
  const sub = async (id: number) =>
    (await http().get(`/api/v1/subscriptions/${id}`).set(asApp(app.TEST))).body.data;
  const post = (id: number, action: string, body: object = {}) =>
    http().post(`/api/v1/subscriptions/${id}/${action}`).set(asApp(app.TEST)).send(body);
  const invoicesOf = async (id: number) => {
    const res = await http()
      .get(`/api/v1/invoices?subscriptionId=${id}&size=100`)
      .set(asApp(app.TEST));
    expect(res.status).toBe(200);
    return res.body.data as { id: number; status: string; subscriptionId: number }[];
  };

  it('a cancel racing a capture of the subscription`s invoice: both answer (no 500, no deadlock left unanswered)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const s = await subscribe();
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
    const s = await subscribe();
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
    const a = await subscribe();
    const b = await subscribe();
    expect((await invoicesOf(a.subscriptionId)).map((i) => i.id)).toEqual([a.invoice.id]);
    expect((await invoicesOf(b.subscriptionId)).map((i) => i.subscriptionId)).toEqual([
      b.subscriptionId,
    ]);
    const bad = await http().get('/api/v1/invoices?subscriptionId=abc').set(asApp(app.TEST));
    expect(bad.status).toBe(400);
  });
});
