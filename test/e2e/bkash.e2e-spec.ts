import { PaymentConfirmationsService } from '../../src/payments';
import { BkashFake } from '../support/bkash-fake';
import { captureLogs } from '../support/capture-logs';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { bkashPaymentId, bkashReturn, setGateway } from '../support/gateways';
import { expectBalancedLedger } from '../support/ledger';
import { eventsOf } from '../support/payments';
import { lockNowait, openTransactions } from '../support/slow-gateway';
import { createTestApp, TestApp } from '../support/test-app';

/** The bKash tokenized-checkout adapter against a local contract fake of its API. */
describe('bKash gateway (against a contract fake)', () => {
  let fake: BkashFake;
  let t: TestApp;
  let app: CreatedApp;
  let logged: string[] = [];

  beforeAll(async () => {
    fake = await new BkashFake().start();
    logged = captureLogs();
    t = await createTestApp({
      config: {
        bkashSandboxUrl: fake.baseUrl,
        bkashLiveUrl: fake.baseUrl,
        gatewayTimeoutMs: 1000,
        logLevel: 'info',
      },
    });
    app = await createApp(t);
    expect((await setGateway(t, app.id, 'bkash', 'TEST', fake.app, true)).status).toBe(200);
  });
  afterEach(() => expectBalancedLedger(t.db));
  afterAll(async () => {
    await t.close();
    await fake.stop();
    jest.restoreAllMocks();
  });

  const http = () => t.http();
  const newPayment = async (amountMinor = 50025) => {
    const res = await http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor, customerReference: 'bk-cust' });
    expect(res.status).toBe(201);
    return res.body.data as { id: number; reference: string; checkoutUrl: string; gateway: string };
  };
  const paymentOf = async (id: number) =>
    (await http().get(`/api/v1/payments/${id}`).set(asApp(app.TEST))).body.data;
  const paymentIdOf = bkashPaymentId;
  const comeBack = (paymentID: string, status: 'success' | 'failure' | 'cancel') =>
    bkashReturn(t, fake, paymentID, status);

  it('pays end to end (create, customer pays, return, execute): SUCCEEDED once; one token serves every call, shared through the database', async () => {
    const grantsBefore = fake.grants;
    const p = await newPayment(50025);
    expect(p.gateway).toBe('bkash');
    const paymentID = paymentIdOf(p.checkoutUrl);
    fake.customerPays(paymentID);
    const backs = await Promise.all([
      comeBack(paymentID, 'success'),
      comeBack(paymentID, 'success'),
    ]);
    expect(backs.map((b) => b.status)).toEqual([303, 303]);
    const after = await paymentOf(p.id);
    expect(after).toMatchObject({ status: 'SUCCEEDED', paymentMethod: 'bkash' });
    expect(after.gatewayTxnId).toMatch(/^BKX/);
    const types = (await eventsOf(t, app.id, 'payment.'))
      .filter((e) => e.data.payment_id === p.id)
      .map((e) => e.type);
    expect(types).toEqual(['payment.succeeded']);
    await newPayment(1000);
    expect(fake.grants - grantsBefore).toBeLessThanOrEqual(1);
    const row = await t.db.query(`SELECT sealed FROM gateway_tokens WHERE app_id = $1`, [app.id]);
    expect(row.rows).toHaveLength(1);
    expect(row.rows[0].sealed).not.toMatch(/tok_/);
  });

  it('returns are hints: a "success" for an unpaid payment captures nothing; cancel and failure change nothing until bKash says so', async () => {
    const p = await newPayment(2000);
    const paymentID = paymentIdOf(p.checkoutUrl);
    await comeBack(paymentID, 'success');
    expect((await paymentOf(p.id)).status).toBe('PENDING');
    // bKash still says Initiated: a cancel return alone ends nothing.
    await comeBack(paymentID, 'cancel');
    expect((await paymentOf(p.id)).status).toBe('PENDING');
    fake.customerCancels(paymentID);
    await comeBack(paymentID, 'cancel');
    expect((await paymentOf(p.id)).status).toBe('CANCELLED');

    const q = await newPayment(3000);
    const back = await comeBack(paymentIdOf(q.checkoutUrl), 'failure');
    expect(back.status).toBe(303);
    expect((await paymentOf(q.id)).status).toBe('PENDING');
    const events = (await eventsOf(t, app.id, 'payment.')).filter(
      (e) => e.data.payment_id === q.id,
    );
    expect(events).toEqual([]);
  });

  it('a cancel or failure return for a payment the customer authorised captures it (bKash is asked, not the return believed)', async () => {
    const p = await newPayment(2100);
    const paymentID = paymentIdOf(p.checkoutUrl);
    fake.customerPays(paymentID);
    await comeBack(paymentID, 'cancel');
    expect(await paymentOf(p.id)).toMatchObject({ status: 'SUCCEEDED', amountMinor: 2100 });
    expect(fake.payments.get(paymentID)!.state).toBe('Completed');
  });

  it('a capture of another amount: SUCCEEDED, counted on no invoice, refunded whole with reason amount_mismatch', async () => {
    const r = await newPayment(4000);
    fake.customerPays(paymentIdOf(r.checkoutUrl));
    fake.wrongAmount = true;
    try {
      await comeBack(paymentIdOf(r.checkoutUrl), 'success');
    } finally {
      fake.wrongAmount = false;
    }
    expect(await paymentOf(r.id)).toMatchObject({
      status: 'SUCCEEDED',
      amountMinor: 4100,
      excessMinor: 4100,
    });
    const { RefundsService } = await import('../../src/refunds');
    await t.app.get(RefundsService).recheckPending();
    const rows = await t.db.query(
      `SELECT amount_minor, reason, status FROM refunds WHERE payment_id = $1`,
      [r.id],
    );
    expect(rows.rows).toEqual([
      { amount_minor: 4100, reason: 'amount_mismatch', status: 'SUCCEEDED' },
    ]);
  });

  it("holds no transaction or lock while bKash hangs; a timeout leaves PENDING, and the waiting customer's page settles it once bKash answers", async () => {
    const p = await newPayment(6000);
    const paymentID = paymentIdOf(p.checkoutUrl);
    fake.customerPays(paymentID);
    fake.mode = 'hang';
    // then(): supertest sends only once someone waits for the answer.
    const back = comeBack(paymentID, 'success').then((r) => r);
    for (let i = 0; i < 200 && fake.waiting === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(fake.waiting).toBeGreaterThan(0);
    expect(await openTransactions(t)).toBe(0);
    await lockNowait(t, 'payments', p.id);
    // The customer is not shown an error: bKash timed out, so the payment is
    // still being confirmed, and the browser goes where a PENDING one does.
    const waiting = await back;
    expect(waiting.status).toBe(303);
    expect(waiting.headers.location).toBe(`/pay/result/${p.reference}`);
    fake.unhang();
    // The execute the fake held may have gone through meanwhile, or not: either way the payment is PENDING here.
    expect((await paymentOf(p.id)).status).toBe('PENDING');
    fake.mode = 'garbage';
    const garbled = await comeBack(paymentID, 'success');
    expect([garbled.status, garbled.headers.location]).toEqual([303, `/pay/result/${p.reference}`]);
    // The page it lands on says so, reloads itself, and is not an API error.
    const shown = await http().get(`/pay/result/${p.reference}`).set('accept-language', 'bn');
    expect(shown.status).toBe(200);
    expect(shown.headers['content-type']).toMatch(/^text\/html/);
    expect(shown.headers.refresh).toBe('10');
    expect(shown.text).toContain('এখনই আবার পরিশোধ করবেন না');
    fake.mode = 'ok';
    // Reloaded within 10 s, the page does not ask bKash again (reloads cannot flood it).
    const calls = fake.calls.length;
    expect((await http().get(`/pay/result/${p.reference}`)).text).toContain('>Pending</span>');
    expect(fake.calls.length).toBe(calls);
    // Ten seconds on, it asks: bKash executes the payment the customer
    // authorized (or says the held execute went through), and the waiting
    // customer sees it paid, with no sweep and no second return.
    t.clock.advance(10_000);
    try {
      const paidNow = await http().get(`/pay/result/${p.reference}`);
      expect(paidNow.text).toContain('data-testid="payment-status">Paid</span>');
      expect(paidNow.headers.refresh).toBeUndefined();
    } finally {
      t.clock.advance(-10_000);
    }
    expect(fake.calls.slice(calls)).toContain('execute');
    expect((await paymentOf(p.id)).status).toBe('SUCCEEDED');
  });

  it('captures a payment the customer authorized whose return never reached Joma (the sweep executes it); one never authorized expires', async () => {
    const paid = await newPayment(7000);
    fake.customerPays(paymentIdOf(paid.checkoutUrl)); // ...and closed the browser
    const unpaid = await newPayment(8000);
    t.clock.advance(2 * 3600_000);
    try {
      await t.app.get(PaymentConfirmationsService).expireDue();
    } finally {
      t.clock.advance(-2 * 3600_000);
    }
    expect((await paymentOf(paid.id)).status).toBe('SUCCEEDED');
    expect(fake.payments.get(paymentIdOf(paid.checkoutUrl))!.state).toBe('Completed');
    expect((await paymentOf(unpaid.id)).status).toBe('EXPIRED');
    expect(fake.payments.get(paymentIdOf(unpaid.checkoutUrl))!.state).toBe('Initiated');
    const events = await t.db.query(
      `SELECT type, data->>'payment_id' AS id FROM events WHERE app_id = $1 AND type IN ('payment.succeeded', 'payment.expired') AND (data->>'payment_id')::int = ANY($2) ORDER BY id`,
      [app.id, [paid.id, unpaid.id]],
    );
    expect(events.rows).toEqual([
      { type: 'payment.succeeded', id: String(paid.id) },
      { type: 'payment.expired', id: String(unpaid.id) },
    ]);
  });

  it.each([
    'query-payment.completed-merchantInvoice',
    'query-payment.completed-merchantInvoiceNumber',
  ])(
    "execute's answer lost after bKash captured: the status query (%s) records the capture, SUCCEEDED and counted, never EXPIRED (decisions 19)",
    async (shape) => {
      fake.shapes['query-payment'] = shape;
      try {
        const errorsBefore = logged.filter((l) => /does not match|differs/.test(l)).length;
        const p = await newPayment(9100);
        const paymentID = paymentIdOf(p.checkoutUrl);
        fake.customerPays(paymentID);
        fake.loseNextExecuteAnswer = true;
        // The return's execute loses its answer; the status query then says Completed.
        await comeBack(paymentID, 'success');
        expect(fake.payments.get(paymentID)!.state).toBe('Completed');
        expect(await paymentOf(p.id)).toMatchObject({
          status: 'SUCCEEDED',
          amountMinor: 9100,
          excessMinor: 0,
        });
        // The same with the sweep at the deadline: still SUCCEEDED, one payment.succeeded, no refund.
        t.clock.advance(2 * 3600_000);
        try {
          await t.app.get(PaymentConfirmationsService).expireDue();
        } finally {
          t.clock.advance(-2 * 3600_000);
        }
        expect((await paymentOf(p.id)).status).toBe('SUCCEEDED');
        const types = (await eventsOf(t, app.id, 'payment.'))
          .filter((e) => e.data.payment_id === p.id)
          .map((e) => e.type);
        expect(types).toEqual(['payment.succeeded']);
        const refunds = await t.db.query(`SELECT 1 FROM refunds WHERE payment_id = $1`, [p.id]);
        expect(refunds.rowCount).toBe(0);
        // A repeated success return of the paid payment logs no false error.
        await comeBack(paymentID, 'success');
        expect(logged.filter((l) => /does not match|differs/.test(l)).length).toBe(errorsBefore);
      } finally {
        fake.shapes['query-payment'] = 'query-payment.completed-merchantInvoice';
      }
    },
  );

  it("a payment bKash fails carries bKash's own words in failureReason", async () => {
    const p = await newPayment(9200);
    const paymentID = paymentIdOf(p.checkoutUrl);
    fake.payments.get(paymentID)!.state = 'Failed';
    await comeBack(paymentID, 'failure');
    expect(await paymentOf(p.id)).toMatchObject({
      status: 'FAILED',
      failureReason: expect.stringMatching(/^bkash .*transactionStatus Failed/),
    });
  });

  it('refunds through the refund API', async () => {
    const p = await newPayment(10000);
    const paymentID = paymentIdOf(p.checkoutUrl);
    fake.customerPays(paymentID);
    await comeBack(paymentID, 'success');
    const r = await http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(app.TEST))
      .send({ amountMinor: 2500 });
    expect(r.body.data).toMatchObject({
      status: 'SUCCEEDED',
      gatewayRefundId: expect.stringMatching(/^RFX/),
    });
    expect(fake.payments.get(paymentID)!.refunded).toBe(2500);
  });

  it('never writes the credentials or tokens to any log line', () => {
    const all = logged.join('\n');
    // The request log is among what was captured (one line per request above).
    expect(all).toMatch(/"msg":"request completed"/);
    for (const secret of [fake.app.appSecret, fake.app.password, ...fake.tokens])
      expect(all).not.toContain(secret);
  });
});
