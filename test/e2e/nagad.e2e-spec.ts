import {
  constants,
  createPrivateKey,
  createPublicKey,
  privateDecrypt,
  publicEncrypt,
  sign,
} from 'node:crypto';

import { GatewayRegistry } from '../../src/gateways';
import { NagadGateway } from '../../src/gateways/nagad';
import { NAGAD_MAX_MINOR } from '../../src/gateways/nagad/nagad-answers';
import { PaymentConfirmationsService } from '../../src/payments';
import { newKeyPair } from '../../src/simulators/nagad-crypto';
import { captureLogs } from '../support/capture-logs';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { setGateway } from '../support/gateways';
import { expectBalancedLedger } from '../support/ledger';
import { NagadFake } from '../support/nagad-fake';
import { createInvoice, eventsOf } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The Nagad adapter end to end against the Nagad simulator (its contract
 * fake), issue 60 item 4: every Nagad money path and its failure and
 * attacker versions (decisions 11, 13, 19, 22). Callbacks are hints; only
 * Nagad's verify answer settles, and a capture is never lost.
 */
describe('Nagad gateway (against the Nagad simulator)', () => {
  let fake: NagadFake;
  let t: TestApp;
  let app: CreatedApp;
  let logged: string[] = [];

  beforeAll(async () => {
    fake = await new NagadFake().start();
    logged = captureLogs();
    t = await createTestApp({
      config: {
        nagadSandboxUrl: fake.baseUrl,
        nagadLiveUrl: fake.baseUrl,
        gatewayTimeoutMs: 1000,
        callbackDeadlineMs: 1500,
        jwtTtlMinutes: 600,
        logLevel: 'info',
      },
    });
    app = await createApp(t);
    const set = await setGateway(t, app.id, 'nagad', 'TEST', { ...fake.credentials }, true);
    expect(set.status).toBe(200);
  });
  afterEach(async () => {
    fake.mode = 'ok';
    fake.unhang();
    await expectBalancedLedger(t.db);
  });
  afterAll(async () => {
    await t?.close();
    await fake?.stop();
    jest.restoreAllMocks();
  });

  const http = () => t.http();
  type Created = { id: number; reference: string; checkoutUrl: string; gateway: string };
  const newPayment = async (amountMinor = 50025, target = app) => {
    const res = await http()
      .post('/api/v1/payments')
      .set(asApp(target.TEST))
      .send({ amountMinor, customerReference: 'ng-cust', gateway: 'nagad' });
    expect(res.status).toBe(201);
    expect(res.body.data.gateway).toBe('nagad');
    return res.body.data as Created;
  };
  const paymentOf = async (id: number, target = app) =>
    (await http().get(`/api/v1/payments/${id}`).set(asApp(target.TEST))).body.data;
  /** Nagad's paymentReferenceId: the last path segment of the payer's page (complete's callBackUrl). */
  const refOf = (checkoutUrl: string) =>
    decodeURIComponent(new URL(checkoutUrl).pathname.split('/').pop()!);
  /** The payer's browser back from Nagad: the callback URL with the simulator's query string. */
  const comeBack = (ref: string) => {
    const back = new URL(fake.callbackUrl(ref));
    return http().get(back.pathname + back.search);
  };
  /** A callback somebody made up: Nagad's query string with whatever values they like. */
  const forged = (query: Record<string, string>) =>
    http().get(`/api/v1/gateways/nagad/return?${new URLSearchParams(query).toString()}`);
  const typesOf = async (paymentId: number) =>
    (await eventsOf(t, app.id, 'payment.'))
      .filter((e) => e.data.payment_id === paymentId)
      .map((e) => e.type);
  const capturesPosted = async (paymentId: number) =>
    Number(
      (
        await t.db.query(
          `SELECT count(*) AS n FROM ledger_transactions WHERE kind = 'capture' AND source_id = $1`,
          [String(paymentId)],
        )
      ).rows[0].n,
    );
  const sweepAfter = async (ms: number) => {
    t.clock.advance(ms);
    try {
      await t.app.get(PaymentConfirmationsService).expireDue();
    } finally {
      t.clock.advance(-ms);
    }
  };
  const expireNow = (id: number) =>
    http().post(`/api/v1/test-helpers/payments/${id}/expire`).set(asApp(app.TEST)).send();
  const nagadRow = async (target = app) => {
    const res = await http()
      .get(`/api/v1/admin/apps/${target.id}/gateways`)
      .set(bearer(await superAdminToken(t)));
    expect(res.status).toBe(200);
    return (res.body.data as Record<string, unknown>[]).find(
      (g) => g.gateway === 'nagad' && g.mode === 'TEST',
    )!;
  };
  /** No part of a key anywhere: a 40-character slice from inside it would show. */
  const expectNoKeys = (text: string) => {
    for (const key of [
      fake.credentials.merchantPrivateKey,
      fake.credentials.nagadPublicKey,
      fake.keys.nagad.privateKey,
    ])
      expect(text).not.toContain(key.slice(100, 140));
  };

  it('pays end to end: checkout opened, the payer pays on Nagad, the browser comes back twice at once: SUCCEEDED once, one payment.succeeded, the issuer reference as gatewayTxnId, the wallet masked', async () => {
    const p = await newPayment(50025);
    const ref = refOf(p.checkoutUrl);
    // Nagad's page was opened for this checkout: initialize, then complete with the amount in taka.
    const purchase = fake.purchase(ref);
    expect(purchase).toMatchObject({ status: 'Ready', amount: '500.25' });
    expect(purchase.merchantCallbackURL).toBe(`${t.baseUrl}/api/v1/gateways/nagad/return`);
    const page = await fetch(p.checkoutUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('500.25 BDT');
    fake.payerPays(ref);
    const backs = await Promise.all([comeBack(ref), comeBack(ref)]);
    expect(backs.map((b) => b.status)).toEqual([303, 303]);
    const after = await paymentOf(p.id);
    const issuerRef = fake.purchase(ref).issuerPaymentRefNo!;
    const wallet = fake.purchase(ref).clientMobileNo!;
    expect(after).toMatchObject({
      status: 'SUCCEEDED',
      amountMinor: 50025,
      excessMinor: 0,
      gatewayTxnId: issuerRef,
      paymentMethod: 'nagad',
      paymentMethodBrand: 'Nagad',
      paymentMethodAccount: `${wallet.slice(0, 2)}${'*'.repeat(wallet.length - 4)}${wallet.slice(-2)}`,
    });
    expect(after.paymentMethodLabel).toBe(`Nagad ${after.paymentMethodAccount}`);
    expect(JSON.stringify(after)).not.toContain(wallet.slice(2));
    expect(await typesOf(p.id)).toEqual(['payment.succeeded']);
    expect(await capturesPosted(p.id)).toBe(1);
    const event = (await eventsOf(t, app.id, 'payment.succeeded')).find(
      (e) => e.data.payment_id === p.id,
    )!;
    expect(event.data).toMatchObject({ gateway: 'nagad', gateway_txn_id: issuerRef });
    // Every request carried Nagad's headers; every verify asked about this checkout.
    const verifies = fake.requests.filter((r) => r.path === `/verify/payment/${ref}`);
    expect(verifies.length).toBeGreaterThanOrEqual(1);
    for (const r of fake.requests) expect(r.headers['x-km-api-version']).toBe('v-0.2.0');
  });

  it('a forged callback (status=Success for an unpaid checkout) captures nothing: Nagad is asked, and its verify decides', async () => {
    const p = await newPayment(2000);
    const ref = refOf(p.checkoutUrl);
    const purchase = fake.purchase(ref);
    const asked = fake.requests.length;
    const back = await forged({
      merchant: purchase.merchantId,
      order_id: purchase.orderId,
      payment_ref_id: ref,
      status: 'Success',
      status_code: '00_0000_000',
      message: 'Successful Transaction',
      payment_dt: '20261202120000',
      issuer_payment_ref: ref,
    });
    expect([back.status, back.headers.location]).toEqual([303, `/pay/result/${p.reference}`]);
    expect(fake.requests.slice(asked).map((r) => r.path)).toContain(`/verify/payment/${ref}`);
    expect(await paymentOf(p.id)).toMatchObject({ status: 'PENDING', gatewayTxnId: null });
    expect(await typesOf(p.id)).toEqual([]);
    expect(await capturesPosted(p.id)).toBe(0);
    // A callback for a payment_ref_id Nagad never gave Joma names no payment.
    const unknown = await forged({ payment_ref_id: 'bm90LWEtcmVhbC1wYXltZW50', status: 'Success' });
    expect(unknown.status).toBe(404);
    // Aborted, says the forger: Nagad still says the checkout is open, so it stays PENDING.
    await forged({ payment_ref_id: ref, order_id: purchase.orderId, status: 'Aborted' });
    expect((await paymentOf(p.id)).status).toBe('PENDING');
  });

  it('a callback replayed after the capture changes nothing: no second event, no second ledger posting', async () => {
    const p = await newPayment(3000);
    const ref = refOf(p.checkoutUrl);
    fake.payerPays(ref);
    const url = new URL(fake.callbackUrl(ref));
    expect((await http().get(url.pathname + url.search)).status).toBe(303);
    expect((await paymentOf(p.id)).status).toBe('SUCCEEDED');
    const ledgerBefore = await t.db.query(
      `SELECT count(*)::int AS n FROM ledger_entries WHERE app_id = $1`,
      [app.id],
    );
    for (let i = 0; i < 3; i++) {
      const again = await http().get(url.pathname + url.search);
      expect(again.status).toBe(303);
    }
    // Replayed with another status in it, too.
    await forged({ payment_ref_id: ref, status: 'Failed' });
    expect(await paymentOf(p.id)).toMatchObject({ status: 'SUCCEEDED', amountMinor: 3000 });
    expect(await typesOf(p.id)).toEqual(['payment.succeeded']);
    expect(await capturesPosted(p.id)).toBe(1);
    const ledgerAfter = await t.db.query(
      `SELECT count(*)::int AS n FROM ledger_entries WHERE app_id = $1`,
      [app.id],
    );
    expect(ledgerAfter.rows[0].n).toBe(ledgerBefore.rows[0].n);
  });

  it("a callback naming another payment's payment_ref_id, or another order or amount, decides only by verify of the payment it names: the wrong one is never captured", async () => {
    const paid = await newPayment(4000);
    const unpaid = await newPayment(4500);
    const paidRef = refOf(paid.checkoutUrl);
    const unpaidRef = refOf(unpaid.checkoutUrl);
    fake.payerPays(paidRef);
    // The unpaid checkout's order and amount with the paid one's payment_ref_id:
    // Nagad's verify of that payment_ref_id says the PAID one is paid, so that one is recorded.
    await forged({
      merchant: fake.merchantId,
      order_id: fake.purchase(unpaidRef).orderId,
      payment_ref_id: paidRef,
      status: 'Success',
      amount: '45.00',
    });
    expect(await paymentOf(paid.id)).toMatchObject({ status: 'SUCCEEDED', amountMinor: 4000 });
    expect(await paymentOf(unpaid.id)).toMatchObject({ status: 'PENDING', gatewayTxnId: null });
    // The paid one's order, its issuer reference and amount with the unpaid one's
    // payment_ref_id: verify of the unpaid one says it is open, nothing is captured.
    await forged({
      merchant: fake.merchantId,
      order_id: fake.purchase(paidRef).orderId,
      payment_ref_id: unpaidRef,
      status: 'Success',
      issuer_payment_ref: fake.purchase(paidRef).issuerPaymentRefNo!,
      amount: '40.00',
    });
    expect(await paymentOf(unpaid.id)).toMatchObject({ status: 'PENDING', gatewayTxnId: null });
    expect(await typesOf(unpaid.id)).toEqual([]);
    expect(await typesOf(paid.id)).toEqual(['payment.succeeded']);
    expect(await capturesPosted(unpaid.id)).toBe(0);
    // Another app's payment_ref_id is its own: a callback for it changes nothing in this app.
    const other = await createApp(t);
    expect((await setGateway(t, other.id, 'nagad', 'TEST', { ...fake.credentials })).status).toBe(
      200,
    );
    const theirs = await newPayment(4700, other);
    fake.payerPays(refOf(theirs.checkoutUrl));
    await forged({
      payment_ref_id: refOf(theirs.checkoutUrl),
      order_id: fake.purchase(unpaidRef).orderId,
    });
    expect((await paymentOf(theirs.id, other)).status).toBe('SUCCEEDED');
    expect((await paymentOf(unpaid.id)).status).toBe('PENDING');
  });

  it('the payer pays another amount: recorded SUCCEEDED, counted on no invoice, refunded whole as a MANUAL refund (Nagad has no refund call), never sent to Nagad', async () => {
    const invoice = await createInvoice(t, app.TEST, {
      customerReference: 'ng-mis',
      lineItems: [{ description: 'Tea', qty: 1, unitAmountMinor: 40000 }],
    });
    const res = await http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 40000, invoiceId: invoice.id, gateway: 'nagad' });
    expect(res.status).toBe(201);
    const p = res.body.data as Created;
    const ref = refOf(p.checkoutUrl);
    fake.payerPays(ref, { amountMinor: 40100 });
    expect((await comeBack(ref)).status).toBe(303);
    expect(await paymentOf(p.id)).toMatchObject({
      status: 'SUCCEEDED',
      amountMinor: 40100,
      excessMinor: 40100,
      gatewayTxnId: fake.purchase(ref).issuerPaymentRefNo,
    });
    const inv = await http().get(`/api/v1/invoices/${invoice.id}`).set(asApp(app.TEST));
    expect(inv.body.data).toMatchObject({ status: 'ISSUED', amountPaidMinor: 0 });
    const { RefundsService } = await import('../../src/refunds');
    await t.app.get(RefundsService).recheckPending();
    const rows = await t.db.query(
      `SELECT amount_minor, reason, status, manual FROM refunds WHERE payment_id = $1`,
      [p.id],
    );
    expect(rows.rows).toEqual([
      { amount_minor: 40100, reason: 'amount_mismatch', status: 'PENDING', manual: true },
    ]);
    expect(fake.requests.filter((r) => /refund|cancel/i.test(r.path))).toEqual([]);
    expect(logged.join('\n')).toMatch(
      new RegExp(
        `Payment ${p.id}: nagad captured 40100 BDT .* refunded in full \\(amount_mismatch\\)`,
      ),
    );
    // The payer's page says this payment is being refunded, and still offers what is due.
    const page = await http().get(`${new URL(invoice.payableUrl as string).pathname}?lang=en`);
    expect(page.text).toContain('৳401.00 received and being refunded');
    expect(page.text).toContain('Pay ৳400.00 with Nagad');
  });

  it("verify's answer lost after the payer paid: the payment stays PENDING, then the sweep at its deadline asks again and records the capture, never EXPIRED", async () => {
    const p = await newPayment(9100);
    const ref = refOf(p.checkoutUrl);
    fake.payerPays(ref);
    // Verify is a query: Joma asks up to 3 times at once; all 3 answers are lost.
    fake.loseNextVerify(3, ref);
    const back = await comeBack(ref);
    // The payer is sent to the page that says the payment is still being confirmed.
    expect([back.status, back.headers.location]).toEqual([303, `/pay/result/${p.reference}`]);
    expect(await paymentOf(p.id)).toMatchObject({ status: 'PENDING', failureReason: null });
    expect(await typesOf(p.id)).toEqual([]);
    await sweepAfter(2 * 3600_000);
    expect(await paymentOf(p.id)).toMatchObject({
      status: 'SUCCEEDED',
      amountMinor: 9100,
      excessMinor: 0,
      gatewayTxnId: fake.purchase(ref).issuerPaymentRefNo,
    });
    expect(await typesOf(p.id)).toEqual(['payment.succeeded']);
    const refunds = await t.db.query(`SELECT 1 FROM refunds WHERE payment_id = $1`, [p.id]);
    expect(refunds.rowCount).toBe(0);
  });

  it("verify's answers lost on the callback AND at the deadline: the payment stays PENDING (never EXPIRED), is asked again after the sweep's lease, and the capture is recorded", async () => {
    const p = await newPayment(9150);
    const ref = refOf(p.checkoutUrl);
    fake.payerPays(ref);
    // 3 asks on the callback, 3 at the deadline's sweep: all lost.
    fake.loseNextVerify(6, ref);
    await comeBack(ref);
    await sweepAfter(2 * 3600_000);
    expect(await paymentOf(p.id)).toMatchObject({ status: 'PENDING' });
    expect(await typesOf(p.id)).toEqual([]);
    // Within the lease (at least 5 minutes, a quarter of the time past the deadline) it is not asked again.
    await sweepAfter(2 * 3600_000 + 60_000);
    expect(await paymentOf(p.id)).toMatchObject({ status: 'PENDING' });
    // The next sweep after the lease (at most 60 minutes) gets Nagad's answer.
    await sweepAfter(2 * 3600_000 + 61 * 60_000);
    expect(await paymentOf(p.id)).toMatchObject({ status: 'SUCCEEDED', amountMinor: 9150 });
    expect(await typesOf(p.id)).toEqual(['payment.succeeded']);
  });

  it('one verify answer lost: Joma asks again at once (verify is a query) and records the capture', async () => {
    const p = await newPayment(9050);
    const ref = refOf(p.checkoutUrl);
    fake.payerPays(ref);
    fake.loseNextVerify(1, ref);
    const asked = fake.requests.length;
    await comeBack(ref);
    expect(fake.requests.slice(asked).map((r) => r.path)).toEqual([
      `/verify/payment/${ref}`,
      `/verify/payment/${ref}`,
    ]);
    expect(await paymentOf(p.id)).toMatchObject({ status: 'SUCCEEDED', amountMinor: 9050 });
    expect(await typesOf(p.id)).toEqual(['payment.succeeded']);
  });

  it("verify's answer lost, then the deadline passes (POST /test-helpers/payments/{id}/expire): Nagad is asked first, the capture is recorded, never EXPIRED", async () => {
    const p = await newPayment(9200);
    const ref = refOf(p.checkoutUrl);
    fake.payerPays(ref);
    fake.loseNextVerify(6, ref);
    await comeBack(ref);
    await comeBack(ref);
    expect((await paymentOf(p.id)).status).toBe('PENDING');
    const expired = await expireNow(p.id);
    expect(expired.status).toBe(200);
    expect(expired.body.data).toMatchObject({ status: 'SUCCEEDED', amountMinor: 9200 });
    expect(await typesOf(p.id)).toEqual(['payment.succeeded']);
    // A later sweep finds nothing to do with it.
    await sweepAfter(2 * 3600_000);
    expect(await typesOf(p.id)).toEqual(['payment.succeeded']);
  });

  it("a slow verify past the gateway timeout is unknown, not failed: PENDING without a failure reason, settled by Nagad's next answer", async () => {
    const p = await newPayment(9300);
    const ref = refOf(p.checkoutUrl);
    fake.payerPays(ref);
    // Both attempts the callback's 1.5 s deadline allows (1 s each) answer too late.
    fake.slowNext(2500, 2);
    const back = await comeBack(ref);
    expect([back.status, back.headers.location]).toEqual([303, `/pay/result/${p.reference}`]);
    expect(await paymentOf(p.id)).toMatchObject({ status: 'PENDING', failureReason: null });
    expect(await typesOf(p.id)).toEqual([]);
    expect(logged.join('\n')).toMatch(new RegExp(`Return of payment ${p.id} not confirmed`));
    // Nagad answers in time now: the payer's reload of the waiting page settles it.
    t.clock.advance(10_000);
    try {
      const shown = await http().get(`/pay/result/${p.reference}`);
      expect(shown.status).toBe(200);
      expect(shown.text).toContain('data-testid="payment-status">Paid</span>');
    } finally {
      t.clock.advance(-10_000);
    }
    expect(await paymentOf(p.id)).toMatchObject({ status: 'SUCCEEDED', failureReason: null });
    expect(await typesOf(p.id)).toEqual(['payment.succeeded']);
  });

  it('a payment completed after expiry is revived by its callback (decisions 13): payment.expired, then payment.succeeded from expired', async () => {
    const p = await newPayment(9400);
    const ref = refOf(p.checkoutUrl);
    const expired = await expireNow(p.id);
    expect(expired.body.data.status).toBe('EXPIRED');
    // Expiry closes nothing at Nagad: the payer still pays on the page.
    fake.payerPays(ref);
    expect((await comeBack(ref)).status).toBe(303);
    expect(await paymentOf(p.id)).toMatchObject({ status: 'SUCCEEDED', excessMinor: 0 });
    const events = (await eventsOf(t, app.id, 'payment.')).filter(
      (e) => e.data.payment_id === p.id,
    );
    expect(events.map((e) => [e.type, e.data.previous_status])).toEqual([
      ['payment.expired', 'pending'],
      ['payment.succeeded', 'expired'],
    ]);
    expect(await capturesPosted(p.id)).toBe(1);
  });

  it("an invoice's checkout paid after expiry whose callback never came: the pay button asks Nagad first, revives it, and opens no new checkout", async () => {
    const invoice = await createInvoice(t, app.TEST, {
      customerReference: 'ng-inv',
      lineItems: [{ description: 'Tea', qty: 1, unitAmountMinor: 60000 }],
    });
    const payPath = new URL(invoice.payableUrl as string).pathname;
    const click = () => http().post(payPath).type('form').send({ gateway: 'nagad' });
    const first = await click();
    expect(first.status).toBe(303);
    const ref = refOf(first.headers.location as string);
    const paymentId = Number(
      (await t.db.query(`SELECT id FROM payments WHERE invoice_id = $1`, [invoice.id])).rows[0].id,
    );
    expect((await expireNow(paymentId)).body.data.status).toBe('EXPIRED');
    fake.payerPays(ref); // ...and the browser never came back
    t.clock.advance(31_000);
    try {
      const second = await click();
      expect(second.status).toBe(409);
      expect(second.text).toContain('This invoice is paid');
    } finally {
      t.clock.advance(-31_000);
    }
    const rows = await t.db.query(
      `SELECT status, amount_minor, excess_minor FROM payments WHERE invoice_id = $1`,
      [invoice.id],
    );
    expect(rows.rows).toEqual([{ status: 'SUCCEEDED', amount_minor: 60000, excess_minor: 0 }]);
    const inv = await http().get(`/api/v1/invoices/${invoice.id}`).set(asApp(app.TEST));
    expect(inv.body.data).toMatchObject({ status: 'PAID', amountPaidMinor: 60000 });
  });

  it("the payer's double click: two pay-button presses at once open one Nagad checkout, and the payment is captured once", async () => {
    const invoice = await createInvoice(t, app.TEST, {
      customerReference: 'ng-dbl',
      lineItems: [{ description: 'Rice', qty: 1, unitAmountMinor: 70000 }],
    });
    const payPath = new URL(invoice.payableUrl as string).pathname;
    const click = () => http().post(payPath).type('form').send({ gateway: 'nagad' });
    const clicks = await Promise.all([click(), click()]);
    expect(clicks.map((c) => c.status)).toEqual([303, 303]);
    expect(clicks[0].headers.location).toBe(clicks[1].headers.location);
    const payments = await t.db.query(
      `SELECT id, gateway_session_id FROM payments WHERE invoice_id = $1`,
      [invoice.id],
    );
    expect(payments.rows).toHaveLength(1);
    const ref = refOf(clicks[0].headers.location as string);
    expect(payments.rows[0].gateway_session_id).toBe(ref);
    // A third press later reuses it too.
    const third = await click();
    expect(third.headers.location).toBe(clicks[0].headers.location);
    fake.payerPays(ref);
    await Promise.all([comeBack(ref), comeBack(ref)]);
    const id = Number(payments.rows[0].id);
    expect(await paymentOf(id)).toMatchObject({ status: 'SUCCEEDED', amountMinor: 70000 });
    expect(await typesOf(id)).toEqual(['payment.succeeded']);
    expect(await capturesPosted(id)).toBe(1);
    const inv = await http().get(`/api/v1/invoices/${invoice.id}`).set(asApp(app.TEST));
    expect(inv.body.data).toMatchObject({ status: 'PAID', amountPaidMinor: 70000 });
  });

  /**
   * A man in the middle (or a Nagad key that is not the one configured):
   * the next initialize answer is re-sealed from its own plaintext with
   * the wrong key, encrypted for someone else, or not JSON.
   */
  const stranger = newKeyPair();
  function spoilNextInitialize(how: 'signature' | 'other-key' | 'not-json'): void {
    const sim = fake as unknown as {
      answer: (res: unknown, name: string, values?: Record<string, unknown>) => void;
    };
    const original = sim.answer.bind(fake);
    const der = (b64: string) => Buffer.from(b64, 'base64');
    const merchantPrivate = createPrivateKey({
      key: der(fake.keys.merchant.privateKey),
      format: 'der',
      type: 'pkcs8',
    });
    const merchantPublic = createPublicKey({
      key: der(fake.keys.merchant.publicKey),
      format: 'der',
      type: 'spki',
    });
    const nagadPrivate = createPrivateKey({
      key: der(fake.keys.nagad.privateKey),
      format: 'der',
      type: 'pkcs8',
    });
    const strangerPrivate = createPrivateKey({
      key: der(stranger.privateKey),
      format: 'der',
      type: 'pkcs8',
    });
    const strangerPublic = createPublicKey({
      key: der(stranger.publicKey),
      format: 'der',
      type: 'spki',
    });
    const spy = jest.spyOn(sim, 'answer').mockImplementation((res, name, values) => {
      if (name !== fake.shapes.initialize || !values?.sensitiveData)
        return original(res, name, values);
      spy.mockRestore();
      const plain = privateDecrypt(
        { key: merchantPrivate, padding: constants.RSA_PKCS1_PADDING },
        Buffer.from(values.sensitiveData as string, 'base64'),
      );
      const bytes = how === 'not-json' ? Buffer.from('<html>not json</html>') : plain;
      const recipient = how === 'other-key' ? strangerPublic : merchantPublic;
      const signer = how === 'signature' ? strangerPrivate : nagadPrivate;
      original(res, name, {
        ...values,
        sensitiveData: publicEncrypt(
          { key: recipient, padding: constants.RSA_PKCS1_PADDING },
          bytes,
        ).toString('base64'),
        signature: sign('sha256', bytes, signer).toString('base64'),
      });
    });
  }

  it.each([
    [
      'signature',
      /nagad \?: initialize: an answer whose signature does not verify with Nagad's key/,
    ],
    // PKCS#1 v1.5 with implicit rejection: bytes for another key decrypt to noise, which no signature covers.
    [
      'other-key',
      /nagad \?: initialize: an answer (that does not decrypt|whose signature does not verify)/,
    ],
    ['not-json', /nagad \?: initialize: an answer whose plaintext is not JSON/],
  ] as const)(
    'an initialize answer %s is refused, never believed: no checkout, diagnosed in lastError, no key anywhere',
    async (how, words) => {
      const before = logged.length;
      spoilNextInitialize(how);
      const res = await http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 5100, customerReference: 'ng-cust', gateway: 'nagad' });
      expect(res.status).toBe(503);
      expect(res.body.meta.errorCode).toBe('SERVICE_UNAVAILABLE');
      const row = await t.db.query(
        `SELECT status, gateway_session_id, checkout_url, failure_reason FROM payments
          WHERE app_id = $1 ORDER BY id DESC LIMIT 1`,
        [app.id],
      );
      // No payer's page was ever given: no money can move on it (FAILED means so).
      expect(row.rows[0]).toMatchObject({
        status: 'FAILED',
        gateway_session_id: null,
        checkout_url: null,
      });
      expect(row.rows[0].failure_reason).toMatch(words);
      // Nagad was never asked to complete it.
      expect(fake.requests.at(-1)!.path).toMatch(/^\/check-out\/initialize\//);
      const diagnosed = await nagadRow();
      expect(diagnosed.lastError).toMatch(words);
      expectNoKeys(
        [JSON.stringify(res.body), JSON.stringify(row.rows), JSON.stringify(diagnosed)].join('\n'),
      );
      expectNoKeys(logged.slice(before).join('\n'));
      expect(logged.slice(before).join('\n')).toMatch(words);
    },
  );

  it("Nagad answering garbage to verify (a lost answer, not Nagad's words): refused, the payment stays PENDING, diagnosed; settled once Nagad answers", async () => {
    const p = await newPayment(5200);
    const ref = refOf(p.checkoutUrl);
    fake.payerPays(ref);
    fake.mode = 'garbage';
    const back = await comeBack(ref);
    expect([back.status, back.headers.location]).toEqual([303, `/pay/result/${p.reference}`]);
    expect(await paymentOf(p.id)).toMatchObject({ status: 'PENDING', failureReason: null });
    // The status question (the sweep, the waiting page) records what went wrong for the operator.
    t.clock.advance(10_000);
    try {
      await http().get(`/pay/result/${p.reference}`);
    } finally {
      t.clock.advance(-10_000);
    }
    expect((await paymentOf(p.id)).status).toBe('PENDING');
    const diagnosed = await nagadRow();
    expect(diagnosed.lastError).toMatch(/nagad/i);
    expectNoKeys(JSON.stringify(diagnosed));
    fake.mode = 'ok';
    await comeBack(ref);
    expect((await paymentOf(p.id)).status).toBe('SUCCEEDED');
  });

  it("Joma's keys not Nagad's (credentials of another merchant): Nagad refuses the initialize in its own words, never a key in them", async () => {
    const wrong = await createApp(t);
    const alien = new NagadFake();
    const set = await setGateway(t, wrong.id, 'nagad', 'TEST', {
      ...fake.credentials,
      nagadPublicKey: alien.credentials.nagadPublicKey,
    });
    expect(set.status).toBe(200);
    const before = logged.length;
    const res = await http()
      .post('/api/v1/payments')
      .set(asApp(wrong.TEST))
      .send({ amountMinor: 5300, customerReference: 'ng-cust', gateway: 'nagad' });
    expect(res.status).toBe(503);
    const diagnosed = await nagadRow(wrong);
    expect(diagnosed.lastError).toMatch(/^nagad 16_0006_057: /);
    expectNoKeys(JSON.stringify(diagnosed) + logged.slice(before).join('\n'));
    expect(logged.slice(before).join('\n')).not.toContain(
      alien.credentials.nagadPublicKey.slice(100, 140),
    );
  });

  it("the amount at Nagad's limits: 1 poisha and the wire format's largest amount are accepted, one beyond is refused by the registry", async () => {
    // 1 poisha: an invoice's pay button (the app's minimum is for API payments only).
    const tiny = await createInvoice(t, app.TEST, {
      customerReference: 'ng-tiny',
      lineItems: [{ description: 'A sweet', qty: 1, unitAmountMinor: 1 }],
    });
    const pressed = await http()
      .post(new URL(tiny.payableUrl as string).pathname)
      .type('form')
      .send({ gateway: 'nagad' });
    expect(pressed.status).toBe(303);
    const tinyRef = refOf(pressed.headers.location as string);
    expect(fake.purchase(tinyRef).amount).toBe('0.01');
    fake.payerPays(tinyRef);
    await comeBack(tinyRef);
    const paidTiny = await http().get(`/api/v1/invoices/${tiny.id}`).set(asApp(app.TEST));
    expect(paidTiny.body.data).toMatchObject({ status: 'PAID', amountPaidMinor: 1 });

    // The largest: beyond any app's maximum, so asked of the registry and the adapter directly.
    const scope = { appId: app.id, mode: 'TEST' as const };
    const registry = t.app.get(GatewayRegistry);
    expect((await registry.forApp(scope, 'nagad', NAGAD_MAX_MINOR)).name).toBe('nagad');
    await expect(registry.forApp(scope, 'nagad', NAGAD_MAX_MINOR + 1)).rejects.toMatchObject({
      code: 'AMOUNT_OUT_OF_RANGE',
      message: expect.stringContaining(`nagad takes 1 to ${NAGAD_MAX_MINOR}`),
    });
    await expect(registry.forApp(scope, 'nagad', 0)).rejects.toMatchObject({
      code: 'AMOUNT_OUT_OF_RANGE',
    });
    expect(await registry.choicesFor(scope, NAGAD_MAX_MINOR + 1)).not.toContain('nagad');
    const ctx = await registry.context(scope, 'nagad');
    const session = await t.app.get(NagadGateway).createCheckout(
      {
        reference: 'pay_LargestAmountCheckout00',
        amountMinor: NAGAD_MAX_MINOR,
        currency: 'BDT',
        description: null,
        merchantName: 'Largest',
        customer: { reference: 'ng-max', name: null, email: null, phone: null },
        returnUrl: `${t.baseUrl}/api/v1/gateways/nagad/return`,
        ipnUrl: `${t.baseUrl}/api/v1/gateways/nagad/ipn`,
        expiresAt: new Date(t.clock.nowMs() + 3600_000),
      },
      ctx,
    );
    expect(fake.purchase(session.sessionId).amount).toBe('999999999999.99');
    // Through the API, the app's own maximum is the limit: at it, Nagad opens the checkout.
    const root = bearer(await superAdminToken(t));
    const big = await createApp(t);
    await setGateway(t, big.id, 'nagad', 'TEST', { ...fake.credentials }, true);
    await http()
      .patch(`/api/v1/admin/apps/${big.id}/settings`)
      .set(root)
      .send({ maxAmountMinor: 1_000_000_000 });
    const atMax = await newPayment(1_000_000_000, big);
    expect(fake.purchase(refOf(atMax.checkoutUrl)).amount).toBe('10000000.00');
    const beyond = await http()
      .post('/api/v1/payments')
      .set(asApp(big.TEST))
      .send({ amountMinor: 1_000_000_001, customerReference: 'ng-cust', gateway: 'nagad' });
    expect(beyond.status).toBe(422);
    expect(beyond.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
  });

  it("settlements: Nagad's payouts imported as the generic CSV (gateway_txn_id = issuerPaymentRefNo) match its captures", async () => {
    const own = await createApp(t);
    expect((await setGateway(t, own.id, 'nagad', 'TEST', { ...fake.credentials })).status).toBe(
      200,
    );
    const p = await newPayment(12345, own);
    const ref = refOf(p.checkoutUrl);
    fake.payerPays(ref);
    await comeBack(ref);
    const paid = await paymentOf(p.id, own);
    expect(paid.status).toBe('SUCCEEDED');
    const trx = fake.purchase(ref).issuerPaymentRefNo!;
    expect(paid.gatewayTxnId).toBe(trx);
    const root = bearer(await superAdminToken(t));
    const capturedAt = new Date(paid.updatedAt as string);
    const csv = [
      'gateway_txn_id,amount_minor,fee_minor,currency,transaction_time',
      `${trx},12345,185,BDT,${capturedAt.toISOString()}`,
    ].join('\n');
    const imported = await http()
      .post(`/api/v1/admin/settlements/import?applicationId=${own.id}&mode=TEST`)
      .set(root)
      .send({ gateway: 'nagad', csv });
    expect(imported.status).toBe(201);
    expect(imported.body.data).toMatchObject({ lines: 1, imported: 1, rejected: [] });
    // The Dhaka day of the capture.
    const period = new Date(capturedAt.getTime() + 6 * 3600_000).toISOString().slice(0, 10);
    const run = await http()
      .post(`/api/v1/admin/reconciliation/runs?period=${period}&applicationId=${own.id}&mode=TEST`)
      .set(root)
      .send();
    expect(run.status).toBe(201);
    expect(run.body.data).toMatchObject({
      matched: 1,
      amountMismatch: 0,
      missingInternal: 0,
      missingInSettlement: 0,
      ledgerBalanced: true,
      status: 'COMPLETED',
    });
  });

  it('never writes the keys to any log line', () => {
    const all = logged.join('\n');
    expect(all).toMatch(/"msg":"request completed"/);
    expectNoKeys(all);
  });
});
