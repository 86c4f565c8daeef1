import { BkashFake } from '../support/bkash-fake';
import { captureLogs } from '../support/capture-logs';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { bkashPays, setGateway } from '../support/gateways';
import { createInvoice, eventsOf } from '../support/payments';
import { SslcommerzFake } from '../support/sslcommerz-fake';
import { createTestApp, TestApp } from '../support/test-app';

const STORE = { storeId: 'joma_diag_store', storePassword: 'diag-secret-pass' };

/**
 * What a merchant and an operator see of the gateways (decisions section
 * 11): failures in the gateway's own words, which gateways an app has and
 * removing one, SSLCommerz's risk verdict, masked wallet numbers, limits,
 * and returns that the gateway does not vouch for.
 */
describe('gateway diagnostics, risk, masking and limits', () => {
  let ssl: SslcommerzFake;
  let bkash: BkashFake;
  let t: TestApp;
  let app: CreatedApp;
  let root: Record<string, string>;
  let logged: string[] = [];

  beforeAll(async () => {
    ssl = await new SslcommerzFake(STORE.storeId, STORE.storePassword).start();
    bkash = await new BkashFake().start();
    logged = captureLogs();
    t = await createTestApp({
      config: {
        sslcommerzSandboxUrl: ssl.baseUrl,
        sslcommerzLiveUrl: ssl.baseUrl,
        bkashSandboxUrl: bkash.baseUrl,
        gatewayTimeoutMs: 1000,
        callbackDeadlineMs: 1500,
        jwtTtlMinutes: 600,
        logLevel: 'info',
      },
    });
    app = await createApp(t);
    root = bearer(await superAdminToken(t));
    await configure(app, 'sslcommerz', 'TEST', STORE);
    await configure(app, 'bkash', 'TEST', bkash.app);
  });
  afterEach(() => ssl.unhang());
  afterAll(async () => {
    await t.close();
    await ssl.stop();
    await bkash.stop();
    jest.restoreAllMocks();
  });

  const http = () => t.http();
  const configure = async (
    a: CreatedApp,
    gateway: 'sslcommerz' | 'bkash',
    mode: 'TEST' | 'LIVE',
    credentials: Record<string, string>,
  ) => expect((await setGateway(t, a.id, gateway, mode, credentials)).status).toBe(200);
  const pay = (a: CreatedApp, body: Record<string, unknown>, creds = a.TEST) =>
    http()
      .post('/api/v1/payments')
      .set(asApp(creds))
      .send({ customerReference: 'diag', ...body });
  const gatewaysOf = async (a: CreatedApp) => {
    const res = await http().get(`/api/v1/admin/apps/${a.id}/gateways`).set(root);
    expect(res.status).toBe(200);
    return res.body.data as Record<string, unknown>[];
  };

  it("a checkout the gateway refuses: the payment's failureReason, the log line and the app's gateway list carry bKash's own code and message", async () => {
    const other = await createApp(t);
    await configure(other, 'bkash', 'TEST', { ...bkash.app, appKey: 'wrong-key-9876' });
    const res = await pay(other, { amountMinor: 5000, gateway: 'bkash' });
    expect(res.status).toBe(503);
    const [row] = (
      await t.db.query(`SELECT id, status, failure_reason FROM payments WHERE app_id = $1`, [
        other.id,
      ])
    ).rows;
    expect(row.status).toBe('FAILED');
    expect(row.failure_reason).toBe('Could not open a checkout: bkash 2001: Invalid App Key');
    const shown = await http().get(`/api/v1/payments/${row.id}`).set(asApp(other.TEST));
    expect(shown.body.data.failureReason).toBe(row.failure_reason);
    expect(logged.join('\n')).toContain(
      `bkash could not open a checkout for payment ${row.id}: bkash 2001: Invalid App Key`,
    );
    const listed = await gatewaysOf(other);
    expect(listed.find((g) => g.mode === 'TEST' && g.gateway === 'bkash')).toEqual({
      mode: 'TEST',
      gateway: 'bkash',
      configured: true,
      last4: '9876',
      default: false,
      lastError: 'bkash 2001: Invalid App Key',
      lastErrorAt: expect.any(String),
      lastSuccessAt: null,
    });
    const text = JSON.stringify(listed);
    for (const secret of [bkash.app.appSecret, bkash.app.password, 'wrong-key-9876'])
      expect(text).not.toContain(secret);
  });

  it('lastSuccessAt: set by a checkout bKash opened; an error after it shows both; a later success moves it past the error at once', async () => {
    // Time stands still but for the steps below, so the times shown are exact.
    t.clock.freeze();
    try {
      const a = await createApp(t);
      await configure(a, 'bkash', 'TEST', bkash.app);
      const bkashOf = async () =>
        (await gatewaysOf(a)).find((g) => g.mode === 'TEST' && g.gateway === 'bkash')!;
      expect(await bkashOf()).toMatchObject({
        lastError: null,
        lastErrorAt: null,
        lastSuccessAt: null,
      });

      const opened = await pay(a, { amountMinor: 5000, gateway: 'bkash' });
      expect(opened.status).toBe(201);
      const first = await bkashOf();
      expect(first).toMatchObject({ lastError: null, lastErrorAt: null });
      expect(first.lastSuccessAt).toBe(t.clock.now().toISOString());

      // Within the minute a success is not written again (cheap), nor is the stored time moved.
      t.clock.advance(10_000);
      expect((await pay(a, { amountMinor: 5100, gateway: 'bkash' })).status).toBe(201);
      expect((await bkashOf()).lastSuccessAt).toBe(first.lastSuccessAt);

      t.clock.advance(5_000);
      bkash.mode = '500';
      try {
        expect((await pay(a, { amountMinor: 5200, gateway: 'bkash' })).status).toBe(503);
      } finally {
        bkash.mode = 'ok';
      }
      const failed = await bkashOf();
      expect(failed).toMatchObject({
        lastError: expect.stringContaining('bkash'),
        lastErrorAt: t.clock.now().toISOString(),
        lastSuccessAt: first.lastSuccessAt,
      });
      expect(Date.parse(failed.lastErrorAt as string)).toBeGreaterThan(
        Date.parse(first.lastSuccessAt as string),
      );

      // Less than a minute after the last success, but an error came since: written at once.
      t.clock.advance(5_000);
      expect((await pay(a, { amountMinor: 5300, gateway: 'bkash' })).status).toBe(201);
      const recovered = await bkashOf();
      expect(recovered).toMatchObject({
        lastError: failed.lastError,
        lastErrorAt: failed.lastErrorAt,
        lastSuccessAt: t.clock.now().toISOString(),
      });
      expect(Date.parse(recovered.lastSuccessAt as string)).toBeGreaterThan(
        Date.parse(recovered.lastErrorAt as string),
      );
      const [row] = (
        await t.db.query(
          `SELECT last_success_at FROM gateway_credentials WHERE app_id = $1 AND mode = 'TEST' AND gateway = 'bkash'`,
          [a.id],
        )
      ).rows;
      expect(new Date(row.last_success_at).toISOString()).toBe(recovered.lastSuccessAt);
    } finally {
      const reached = t.clock.nowMs();
      t.clock.reset();
      t.clock.advance(Math.max(0, reached - Date.now()));
    }
  });

  it('a gateway asked for an app whose credentials are gone: the error is logged with the payment, naming the missing credentials', async () => {
    const a = await createApp(t);
    await configure(a, 'bkash', 'TEST', bkash.app);
    const p = (await pay(a, { amountMinor: 4500, gateway: 'bkash' })).body.data;
    // Gone behind the API's back (DELETE refuses while the payment is PENDING).
    await t.db.query(
      `DELETE FROM gateway_credentials WHERE app_id = $1 AND mode = 'TEST' AND gateway = 'bkash'`,
      [a.id],
    );
    t.clock.advance(31_000);
    const page = await http().get(`/pay/result/${p.reference}`);
    expect(page.status).toBe(200);
    const text = logged.join('\n');
    expect(text).toContain(
      `Gateway status query failed for payment ${p.id}: bkash: app ${a.id} has no TEST credentials`,
    );
    expect(text).toContain(
      `bkash failed for app ${a.id} in TEST mode, which has no bkash credentials there`,
    );
    // ...and kept in the diagnostics, beside configured: false (decisions 19).
    const bk = (await gatewaysOf(a)).find((g) => g.mode === 'TEST' && g.gateway === 'bkash');
    expect(bk).toMatchObject({
      configured: false,
      last4: null,
      lastError: `bkash: app ${a.id} has no TEST credentials`,
      lastErrorAt: expect.any(String),
    });
  });

  it('removing the credentials keeps the diagnostics (last error, last success); the gateway is no longer offered', async () => {
    const a = await createApp(t);
    await configure(a, 'bkash', 'TEST', { ...bkash.app, password: 'wrong' });
    expect((await pay(a, { amountMinor: 4600, gateway: 'bkash' })).status).toBe(503);
    const removed = await http()
      .delete(`/api/v1/admin/apps/${a.id}/gateways/bkash?mode=TEST`)
      .set(root);
    expect(removed.status).toBe(200);
    const bk = (await gatewaysOf(a)).find((g) => g.mode === 'TEST' && g.gateway === 'bkash');
    expect(bk).toMatchObject({
      configured: false,
      lastError: expect.stringMatching(/^bkash 2001/),
    });
    const again = await pay(a, { amountMinor: 4700, gateway: 'bkash' });
    expect(again.status).toBe(400);
    // A second DELETE finds nothing to remove.
    expect(
      (await http().delete(`/api/v1/admin/apps/${a.id}/gateways/bkash?mode=TEST`).set(root)).status,
    ).toBe(404);
  });

  it('lists every gateway per mode, and DELETE removes one (audited); a second DELETE is 404', async () => {
    const a = await createApp(t);
    await configure(a, 'sslcommerz', 'TEST', STORE);
    await configure(a, 'bkash', 'TEST', bkash.app);
    const listed = await gatewaysOf(a);
    expect(listed.map((g) => [g.mode, g.gateway, g.configured])).toEqual([
      ['TEST', 'bkash', true],
      ['TEST', 'nagad', false],
      ['TEST', 'sandbox', true],
      ['TEST', 'sslcommerz', true],
      ['LIVE', 'bkash', false],
      ['LIVE', 'nagad', false],
      ['LIVE', 'sslcommerz', false],
    ]);
    expect(listed.find((g) => g.gateway === 'sslcommerz' && g.mode === 'TEST')!.last4).toBe('tore');
    const del = await http()
      .delete(`/api/v1/admin/apps/${a.id}/gateways/bkash?mode=TEST`)
      .set(root);
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({
      applicationId: a.id,
      mode: 'TEST',
      gateway: 'bkash',
      deleted: true,
    });
    expect(
      (await gatewaysOf(a)).find((g) => g.mode === 'TEST' && g.gateway === 'bkash'),
    ).toMatchObject({ configured: false, last4: null });
    expect(
      (await http().delete(`/api/v1/admin/apps/${a.id}/gateways/bkash?mode=TEST`).set(root)).status,
    ).toBe(404);
    const refused = await pay(a, { amountMinor: 5000, gateway: 'bkash' });
    expect(refused.status).toBe(400);
    const audit = await t.db.query(
      `SELECT action FROM audit_events WHERE target_id = $1 AND action LIKE 'app.gateway%' ORDER BY id`,
      [String(a.id)],
    );
    expect(audit.rows.map((r) => r.action)).toContain('app.gateway_credentials_removed');
    expect((await http().get(`/api/v1/admin/apps/999999/gateways`).set(root)).status).toBe(404);
  });

  it('SSLCommerz risk_level 1: SUCCEEDED with riskLevel HIGH, risk_level in payment.succeeded, listed by ?risk=HIGH', async () => {
    const normal = (await pay(app, { amountMinor: 12000, gateway: 'sslcommerz' })).body.data;
    await ssl.postIpn(normal.reference, ssl.attempt(normal.reference, 'VALID'));
    ssl.riskLevel = '1';
    const risky = (await pay(app, { amountMinor: 13000, gateway: 'sslcommerz' })).body.data;
    try {
      expect(await ssl.postIpn(risky.reference, ssl.attempt(risky.reference, 'VALID'))).toBe(200);
    } finally {
      ssl.riskLevel = '0';
    }
    const got = async (id: number) =>
      (await http().get(`/api/v1/payments/${id}`).set(asApp(app.TEST))).body.data;
    expect(await got(risky.id)).toMatchObject({ status: 'SUCCEEDED', riskLevel: 'HIGH' });
    expect(await got(normal.id)).toMatchObject({ status: 'SUCCEEDED', riskLevel: 'NORMAL' });
    const events = await eventsOf(t, app.id, 'payment.succeeded');
    expect(events.find((e) => e.data.payment_id === risky.id)!.data.risk_level).toBe('HIGH');
    expect(events.find((e) => e.data.payment_id === normal.id)!.data.risk_level).toBe('NORMAL');
    const high = await http()
      .get(`/api/v1/admin/payments?risk=HIGH&applicationId=${app.id}`)
      .set(root);
    expect(high.status).toBe(200);
    expect(high.body.data.map((p: { id: number }) => p.id)).toEqual([risky.id]);
    expect((await http().get(`/api/v1/admin/payments?risk=SOMETIMES`).set(root)).status).toBe(400);
  });

  it('a bKash wallet number is masked on the payment, in its label and in every log line', async () => {
    const p = (await pay(app, { amountMinor: 3000, gateway: 'bkash' })).body.data;
    await bkashPays(t, bkash, p.checkoutUrl);
    const shown = (await http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST))).body.data;
    expect(shown).toMatchObject({
      status: 'SUCCEEDED',
      paymentMethodAccount: '01*******75',
      paymentMethodLabel: 'bKash 01*******75',
    });
    const stored = await t.db.query(`SELECT * FROM payments WHERE id = $1`, [p.id]);
    expect(JSON.stringify(stored.rows)).not.toContain('01770618575');
    expect(logged.join('\n')).not.toContain('01770618575');
  });

  it("SSLCommerz's limits (10 to 500,000 BDT) are checked before a checkout is asked for; the pay page says so in both languages", async () => {
    const sendsBefore = ssl.requests.filter((r) => r.path === '/gwprocess/v4/api.php').length;
    const low = await pay(app, { amountMinor: 999, gateway: 'sslcommerz' });
    expect(low.status).toBe(422);
    expect(low.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
    expect((await pay(app, { amountMinor: 1000, gateway: 'sslcommerz' })).status).toBe(201);
    expect((await pay(app, { amountMinor: 50_000_001, gateway: 'sslcommerz' })).status).toBe(422);
    expect(
      ssl.requests.filter((r) => r.path === '/gwprocess/v4/api.php').length - sendsBefore,
    ).toBe(1);
    const live = await createApp(t);
    await configure(live, 'sslcommerz', 'LIVE', STORE);
    const invoice = await createInvoice(t, live.LIVE, {
      lineItems: [{ description: 'Tiny', qty: 1, unitAmountMinor: 500 }],
    });
    const page = new URL(invoice.payableUrl as string).pathname;
    const en = await http().get(`${page}?lang=en`);
    expect(en.text).toContain('outside what the online payment methods accept');
    expect(en.text).not.toContain('id="pay-button"');
    const bn = await http().get(`${page}?lang=bn`);
    expect(bn.text).toContain('সীমার বাইরে');
  });

  it('an unsigned SSLCommerz cancel return is a hint: SSLCommerz is asked, the payer sees where the payment stands (never "payment not found")', async () => {
    const p = (await pay(app, { amountMinor: 4000, gateway: 'sslcommerz' })).body.data;
    const back = await http()
      .post('/api/v1/gateways/sslcommerz/return')
      .type('form')
      .send({ tran_id: p.reference, status: 'CANCELLED' });
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe(`/pay/result/${p.reference}`);
    const after = (await http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST))).body.data;
    expect(after.status).toBe('PENDING');
    ssl.attempt(p.reference, 'CANCELLED');
    await http()
      .post('/api/v1/gateways/sslcommerz/return')
      .type('form')
      .send({ tran_id: p.reference, status: 'CANCELLED' });
    const ended = (await http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST))).body.data;
    expect(ended.status).toBe('CANCELLED');
  });

  it('a callback as a whole has a deadline: a hanging gateway is asked no more than the deadline allows, and the IPN answers 503', async () => {
    const p = (await pay(app, { amountMinor: 6000, gateway: 'sslcommerz' })).body.data;
    const attempt = ssl.attempt(p.reference, 'VALID');
    const fields = ssl.callbackFields(p.reference, attempt);
    const before = ssl.requests.filter((r) => r.path.includes('validationserverAPI')).length;
    ssl.mode = 'hang';
    const ipn = await http().post('/api/v1/gateways/sslcommerz/ipn').type('form').send(fields);
    expect(ipn.status).toBe(503);
    // Timeout 1 s per attempt, 3 attempts allowed, deadline 1.5 s: the third never starts.
    expect(ssl.requests.filter((r) => r.path.includes('validationserverAPI')).length - before).toBe(
      2,
    );
  });
});
