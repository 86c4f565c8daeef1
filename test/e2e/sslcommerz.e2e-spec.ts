import { createHash } from 'node:crypto';

import { PaymentConfirmationsService } from '../../src/payments';
import { captureLogs } from '../support/capture-logs';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { setGateway } from '../support/gateways';
import { expectBalancedLedger } from '../support/ledger';
import { eventsOf } from '../support/payments';
import { lockNowait, openTransactions } from '../support/slow-gateway';
import { SslcommerzFake } from '../support/sslcommerz-fake';
import { createTestApp, TestApp } from '../support/test-app';

const STORE = { storeId: 'joma_test', storePassword: 'joma_test@ssl' };

/** The SSLCommerz adapter against a local contract fake of its HTTP API. */
describe('SSLCommerz gateway (against a contract fake)', () => {
  let fake: SslcommerzFake;
  let t: TestApp;
  let app: CreatedApp;
  let logged: string[] = [];

  beforeAll(async () => {
    fake = await new SslcommerzFake(STORE.storeId, STORE.storePassword).start();
    logged = captureLogs();
    t = await createTestApp({
      config: {
        sslcommerzSandboxUrl: fake.baseUrl,
        sslcommerzLiveUrl: fake.baseUrl,
        gatewayTimeoutMs: 1000,
        logLevel: 'info',
      },
    });
    app = await createApp(t);
    const res = await setCredentials(app, 'TEST', STORE, true);
    expect(res.status).toBe(200);
  });
  afterEach(() => expectBalancedLedger(t.db));
  afterAll(async () => {
    await t.close();
    await fake.stop();
    jest.restoreAllMocks();
  });

  const http = () => t.http();
  const setCredentials = (
    a: CreatedApp,
    mode: 'TEST' | 'LIVE',
    credentials: Record<string, string>,
    makeDefault = false,
  ) => setGateway(t, a.id, 'sslcommerz', mode, credentials, makeDefault);
  async function newPayment(amountMinor = 150050, creds = app.TEST) {
    const res = await http()
      .post('/api/v1/payments')
      .set(asApp(creds))
      .send({ amountMinor, customerReference: 'ssl-cust', customerPhone: '01711111111' });
    return res;
  }
  const paymentOf = async (id: number) =>
    (await http().get(`/api/v1/payments/${id}`).set(asApp(app.TEST))).body.data;

  it('stores credentials sealed and never shows them; the app default sends payments to SSLCommerz', async () => {
    const res = await setCredentials(app, 'TEST', STORE, true);
    expect(res.body.data).toEqual({
      applicationId: app.id,
      mode: 'TEST',
      gateway: 'sslcommerz',
      credentialFields: ['storeId', 'storePassword'],
      defaultGateway: 'sslcommerz',
      configuredGateways: ['sslcommerz'],
    });
    expect(JSON.stringify(res.body)).not.toContain(STORE.storePassword);
    const row = await t.db.query(`SELECT sealed FROM gateway_credentials WHERE app_id = $1`, [
      app.id,
    ]);
    expect(row.rows[0].sealed).not.toContain(STORE.storePassword);
    expect(row.rows[0].sealed).not.toContain(STORE.storeId);
    const bad = await setCredentials(app, 'TEST', { storeId: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.meta.details[0].message).toContain('storeId, storePassword');
    const unknown = await http()
      .patch(`/api/v1/admin/apps/${app.id}/gateways/paypal?mode=TEST`)
      .set(bearer(await superAdminToken(t)))
      .send({ credentials: {} });
    expect(unknown.status).toBe(400);
  });

  it('pays end to end: checkout at SSLCommerz, IPN verified by hash and validation API, SUCCEEDED once despite repeats and races', async () => {
    const created = await newPayment(150050);
    expect(created.status).toBe(201);
    const p = created.body.data;
    expect(p.gateway).toBe('sslcommerz');
    expect(p.checkoutUrl).toMatch(
      new RegExp(`^${fake.baseUrl}/gwprocess/v4/gw.php\\?Q=pay&SESSIONKEY=`),
    );
    const init = fake.requests.find(
      (r) => r.path === '/gwprocess/v4/api.php' && r.form.get('tran_id') === p.reference,
    )!;
    expect(init.form.get('total_amount')).toBe('1500.50');
    expect(init.form.get('currency')).toBe('BDT');
    expect(init.form.get('ipn_url')).toBe(`${t.baseUrl}/api/v1/gateways/sslcommerz/ipn`);
    // The customer's own fields where Joma has them; no made-up address (decisions 19: it feeds risk scoring).
    expect(init.form.get('cus_phone')).toBe('+8801711111111');
    for (const field of ['cus_add1', 'cus_city', 'cus_postcode', 'cus_country'])
      expect(init.form.has(field)).toBe(false);

    const attempt = fake.attempt(p.reference, 'VALID');
    const statuses = await Promise.all([1, 2, 3].map(() => fake.postIpn(p.reference, attempt)));
    expect(statuses).toEqual([200, 200, 200]);
    const after = await paymentOf(p.id);
    expect(after).toMatchObject({ status: 'SUCCEEDED', gatewayTxnId: attempt.bankTranId });
    const events = (await eventsOf(t, app.id, 'payment.')).filter(
      (e) => e.data.payment_id === p.id,
    );
    expect(events.map((e) => e.type)).toEqual(['payment.succeeded']);
    // The browser comes back too: sent on to the result, nothing changes.
    const back = await http()
      .post('/api/v1/gateways/sslcommerz/return')
      .type('form')
      .send(fake.callbackFields(p.reference, attempt));
    expect(back.status).toBe(303);
    expect(
      (await eventsOf(t, app.id, 'payment.')).filter((e) => e.data.payment_id === p.id),
    ).toHaveLength(1);
  });

  it('never settles a forged callback; a validated capture of another amount is SUCCEEDED and refunded whole (amount_mismatch)', async () => {
    const p = (await newPayment(20000)).body.data;
    const attempt = fake.attempt(p.reference, 'VALID');
    expect(await fake.postIpn(p.reference, attempt, { forge: true })).toBe(404);
    expect((await paymentOf(p.id)).status).toBe('PENDING');
    fake.wrongAmount = true;
    try {
      expect(await fake.postIpn(p.reference, attempt)).toBe(200);
    } finally {
      fake.wrongAmount = false;
    }
    // The gateway holds 201.00 where 200.00 was asked: a capture all the same, given back whole.
    expect(await paymentOf(p.id)).toMatchObject({
      status: 'SUCCEEDED',
      amountMinor: 20100,
      excessMinor: 20100,
    });
    const refunds = await t.db.query(
      `SELECT amount_minor, reason, automatic, approval_required FROM refunds WHERE payment_id = $1`,
      [p.id],
    );
    expect(refunds.rows).toEqual([
      { amount_minor: 20100, reason: 'amount_mismatch', automatic: true, approval_required: false },
    ]);
    expect(await fake.postIpn(p.reference, attempt)).toBe(200);
    const succeeded = (await eventsOf(t, app.id, 'payment.')).filter(
      (e) => e.data.payment_id === p.id,
    );
    expect(succeeded.map((e) => e.type)).toEqual(['payment.succeeded']);
    expect(succeeded[0].data).toMatchObject({ amount_minor: 20100, excess_minor: 20100 });
  });

  it('issue 56: an IPN whose verify_key names store_passwd (the sender sets that value, so the signature) is not applied', async () => {
    const p = (await newPayment(20000)).body.data;
    const attempt = fake.attempt(p.reference, 'VALID');
    const fields: Record<string, string> = {
      ...fake.callbackFields(p.reference, attempt),
      store_passwd: 'chosen-by-the-forger',
    };
    fields.verify_key = `${fields.verify_key},store_passwd`;
    // Signed as SSLCommerz would, but with the forger's store_passwd: no password needed.
    const signed = Object.fromEntries(fields.verify_key.split(',').map((k) => [k, fields[k]]));
    fields.verify_sign = createHash('md5')
      .update(
        Object.keys(signed)
          .sort()
          .map((k) => `${k}=${signed[k]}`)
          .join('&'),
      )
      .digest('hex');
    const res = await http().post('/api/v1/gateways/sslcommerz/ipn').type('form').send(fields);
    expect(res.status).toBe(404);
    expect((await paymentOf(p.id)).status).toBe('PENDING');
    expect(logged.join('\n')).toContain(`Callback for ${p.reference} has no valid verify_sign`);
  });

  it('a declined attempt then a paid one: no payment.failed before the capture; the payer is offered another try (decisions 19)', async () => {
    const p = (await newPayment(30000)).body.data;
    const failed = fake.attempt(p.reference, 'FAILED');
    await fake.postIpn(p.reference, failed);
    // One attempt declined: the session still takes another, so the payment stays PENDING.
    expect(await paymentOf(p.id)).toMatchObject({
      status: 'PENDING',
      failureReason: expect.stringMatching(/^sslcommerz FAILED/),
    });
    for (const lang of ['en', 'bn']) {
      const page = await http().get(`/pay/result/${p.reference}?lang=${lang}`);
      expect(page.text).toContain('data-testid="attempt-failed"');
      expect(page.text).toContain(`href="${p.checkoutUrl.replace(/&/g, '&amp;')}"`);
    }
    const paid = fake.attempt(p.reference, 'VALID');
    await fake.postIpn(p.reference, paid);
    expect(await paymentOf(p.id)).toMatchObject({ status: 'SUCCEEDED', failureReason: null });
    const types = (await eventsOf(t, app.id, 'payment.'))
      .filter((e) => e.data.payment_id === p.id)
      .map((e) => e.type);
    expect(types).toEqual(['payment.succeeded']);
  });

  it("a checkout with only declined attempts ends FAILED at its deadline, with payment.failed and the gateway's words", async () => {
    const p = (await newPayment(30100)).body.data;
    await fake.postIpn(p.reference, fake.attempt(p.reference, 'FAILED'));
    expect((await paymentOf(p.id)).status).toBe('PENDING');
    t.clock.advance(2 * 3600_000);
    try {
      await t.app.get(PaymentConfirmationsService).expireDue();
    } finally {
      t.clock.advance(-2 * 3600_000);
    }
    expect(await paymentOf(p.id)).toMatchObject({
      status: 'FAILED',
      failureReason: expect.stringMatching(/^sslcommerz FAILED/),
    });
    const types = (await eventsOf(t, app.id, 'payment.'))
      .filter((e) => e.data.payment_id === p.id)
      .map((e) => e.type);
    expect(types).toEqual(['payment.failed']);
  });

  it.each([
    ['session-init.success-easycheckout', 'validation.validated'],
    ['session-init.success', 'validation.valid'],
  ])(
    'pays end to end against the published variants %s and %s (decisions 19)',
    async (session, validation) => {
      fake.shapes['session-init'] = session;
      fake.shapes.validation = validation;
      try {
        const p = (await newPayment(30200)).body.data;
        expect(p.checkoutUrl).toContain('/gwprocess/v4/gw.php');
        expect(await fake.postIpn(p.reference, fake.attempt(p.reference, 'VALID'))).toBe(200);
        expect(await paymentOf(p.id)).toMatchObject({ status: 'SUCCEEDED', amountMinor: 30200 });
      } finally {
        fake.shapes['session-init'] = 'session-init.success';
        fake.shapes.validation = 'validation.valid';
      }
    },
  );

  it('holds no transaction or row lock while SSLCommerz hangs; a timeout leaves the payment PENDING and a later query settles it', async () => {
    const p = (await newPayment(40000)).body.data;
    const attempt = fake.attempt(p.reference, 'VALID');
    fake.mode = 'hang';
    const ipn = fake.postIpn(p.reference, attempt);
    for (let i = 0; i < 200 && fake.waiting === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(fake.waiting).toBeGreaterThan(0);
    expect(await openTransactions(t)).toBe(0);
    await lockNowait(t, 'payments', p.id);
    // Timed out (1 s deadline, queries retried twice): not settled, SSLCommerz will retry its IPN.
    expect(await ipn).toBe(503);
    fake.unhang();
    expect((await paymentOf(p.id)).status).toBe('PENDING');
    // Garbage is no better.
    fake.mode = 'garbage';
    expect(await fake.postIpn(p.reference, attempt)).toBe(503);
    // The customer's browser posting back meanwhile is not shown an error:
    // it goes where a PENDING payment goes, the page that waits for the answer.
    const back = await http()
      .post('/api/v1/gateways/sslcommerz/return')
      .type('form')
      .send(fake.callbackFields(p.reference, attempt));
    expect([back.status, back.headers.location]).toEqual([303, `/pay/result/${p.reference}`]);
    fake.mode = 'ok';
    expect((await paymentOf(p.id)).status).toBe('PENDING');
    // The expiry sweep asks again once the deadline passes: the capture is found.
    t.clock.advance(2 * 3600_000);
    await t.app.get(PaymentConfirmationsService).expireDue();
    t.clock.advance(-2 * 3600_000);
    expect((await paymentOf(p.id)).status).toBe('SUCCEEDED');
  });

  it('a late IPN after expiry revives the payment', async () => {
    const p = (await newPayment(50000)).body.data;
    t.clock.advance(2 * 3600_000);
    await t.app.get(PaymentConfirmationsService).expireDue();
    expect((await paymentOf(p.id)).status).toBe('EXPIRED');
    const attempt = fake.attempt(p.reference, 'VALID');
    expect(await fake.postIpn(p.reference, attempt)).toBe(200);
    t.clock.advance(-2 * 3600_000);
    expect((await paymentOf(p.id)).status).toBe('SUCCEEDED');
    const types = (await eventsOf(t, app.id, 'payment.'))
      .filter((e) => e.data.payment_id === p.id)
      .map((e) => e.type);
    expect(types).toEqual(['payment.expired', 'payment.succeeded']);
  });

  it('refunds through the refund API: "success" is only initiated (PENDING) until the refund query says refunded', async () => {
    const { RefundsService } = await import('../../src/refunds');
    const service = t.app.get(RefundsService);
    // Earlier tests' automatic refunds go first: only this test's refunds are counted below.
    t.clock.advance(61_000);
    await service.recheckPending();
    t.clock.advance(61_000);
    await service.recheckPending();
    const p = (await newPayment(60000)).body.data;
    await fake.postIpn(p.reference, fake.attempt(p.reference, 'VALID'));
    const r = await http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(app.TEST))
      .send({ amountMinor: 10000 });
    expect(r.body.data).toMatchObject({
      status: 'PENDING',
      gatewayRefundId: expect.stringMatching(/^RF/),
    });
    const sent = fake.requests.filter((x) => x.query.get('refund_amount'));
    expect(sent.at(-1)!.query.get('refund_amount')).toBe('100.00');
    expect(sent.at(-1)!.query.has('refund_trans_id')).toBe(false);
    expect(sent.at(-1)!.query.get('refe_id')).toBe(`rfd_${r.body.data.id}`);
    expect((await paymentOf(p.id)).amountRefundedMinor).toBe(0);

    fake.refundsProcessing = true;
    const second = await http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(app.TEST))
      .send({ amountMinor: 5000 });
    expect(second.body.data.status).toBe('PENDING');
    fake.refundsProcessing = false;
    t.clock.advance(61_000);
    // Two replicas' re-checks at once ask SSLCommerz once per refund: each trip is claimed.
    const queriesBefore = fake.requests.filter((x) => x.query.get('refund_ref_id')).length;
    fake.mode = 'hang';
    const both = Promise.all([service.recheckPending(), service.recheckPending()]);
    for (let i = 0; i < 200 && fake.waiting === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 300));
    fake.unhang();
    const settled = await both;
    expect(settled.reduce((a, b) => a + b, 0)).toBe(2);
    expect(fake.requests.filter((x) => x.query.get('refund_ref_id')).length - queriesBefore).toBe(
      2,
    );
    expect(fake.requests.filter((x) => x.query.get('refund_amount')).length).toBe(sent.length + 1);
    expect((await paymentOf(p.id)).amountRefundedMinor).toBe(15000);
  });

  it('a checkout SSLCommerz refuses (bad credentials) fails the payment with 503; LIVE without credentials has no gateway', async () => {
    const other = await createApp(t);
    await setCredentials(other, 'TEST', { storeId: 'joma_test', storePassword: 'wrong' }, true);
    const res = await newPayment(1000, other.TEST);
    expect(res.status).toBe(503);
    expect(res.body.meta.errorCode).toBe('SERVICE_UNAVAILABLE');
    const live = await newPayment(1000, other.LIVE);
    expect(live.status).toBe(400);
    expect(live.body.meta.details[0].message).toContain(
      'no gateway takes LIVE payments for this app',
    );
  });

  it('never writes the credentials to any response or log line', () => {
    const all = logged.join('\n');
    // The request log is among what was captured (one line per request above).
    expect(all).toMatch(/"msg":"request completed"/);
    expect(all).not.toContain(STORE.storePassword);
    expect(all).not.toContain('wrong');
  });
});
