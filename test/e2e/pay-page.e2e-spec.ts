import { appFixture } from '../support/app-fixture';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { createInvoice, createPayment, settle } from '../support/payments';
import { TestApp } from '../support/test-app';

/** The hosted pay page over plain HTTP: escaping of merchant input, void and unknown links. */
describe('hosted pay page (HTTP)', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture({ balancedLedger: true });
  beforeAll(async () => {
    ({ t, app } = fixture);
    // Read in English when nothing chose a language: the app's defaultLanguage (bn unless set)
    // is the pages' fallback, tested in pay-page.e2e-spec.
    const english = await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/settings`)
      .set(bearer(await superAdminToken(t)))
      .send({ defaultLanguage: 'en' });
    expect(english.status).toBe(200);
  });

  async function issue(body: Record<string, unknown> = {}) {
    const res = await t
      .http()
      .post('/api/v1/invoices')
      .set(asApp(app.TEST))
      .send({
        customerReference: 'cust-esc',
        lineItems: [{ description: 'Widget', qty: 1, unitAmountMinor: 5000 }],
        ...body,
      });
    expect(res.status).toBe(201);
    return { invoice: res.body.data, path: new URL(res.body.data.payableUrl).pathname };
  }

  it('renders merchant and customer input as text, never as markup', async () => {
    const put = await t.http().put('/api/v1/invoices/template').set(asApp(app.TEST)).send({
      companyName: '<script>alert(1)</script>',
      companyAddress: '1 Road </div><iframe src=x>',
      footerNote: `He said "pay" & it's 'due' <b>now</b>`,
      logoUrl: 'https://cdn.example.com/logo.png?a="><script>alert(2)</script>',
      accentColor: '#123abc',
    });
    expect(put.status).toBe(200);
    const { path } = await issue({
      customerName: '"><svg onload=alert(3)>',
      lineItems: [{ description: '<img src=x onerror=alert(1)>', qty: 2, unitAmountMinor: 61725 }],
    });

    const res = await t.http().get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    const body = res.text;

    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(body).toContain(
      'He said &quot;pay&quot; &amp; it&#39;s &#39;due&#39; &lt;b&gt;now&lt;/b&gt;',
    );
    expect(body).toContain('1 Road &lt;/div&gt;&lt;iframe src=x&gt;');
    expect(body).toContain('&quot;&gt;&lt;svg onload=alert(3)&gt;');
    expect(body).toContain('৳1,234.50');
    expect(body).toContain('--accent: #123abc;');

    // no raw tags from any of the inputs, and no script element at all
    expect(body).not.toMatch(/<script/i);
    expect(body).not.toMatch(/<img src=x/i);
    expect(body).not.toMatch(/<svg/i);
    expect(body).not.toMatch(/<iframe/i);
    expect(body).not.toContain('<b>now</b>');
    // the logo stays inside its attribute
    const img = body.match(/<img src="([^"]*)" alt="([^"]*)">/);
    expect(img).not.toBeNull();
    expect(img![1]).toMatch(/^https:\/\/cdn\.example\.com\/logo\.png\?a=/);
    expect(img![1]).not.toMatch(/[<>]/);
  });

  it("the docs' example logo is served by Joma itself, so the example template shows a real image", async () => {
    const logoUrl = `${t.baseUrl}/dashboard/example-logo.svg`;
    const put = await t
      .http()
      .put('/api/v1/invoices/template')
      .set(asApp(app.TEST))
      .send({ companyName: 'Dhaka Books Ltd.', logoUrl });
    expect(put.status).toBe(200);
    const { path } = await issue();
    const page = await t.http().get(path);
    expect(page.text).toContain(`<img src="${logoUrl}"`);
    const logo = await t.http().get('/dashboard/example-logo.svg');
    expect(logo.status).toBe(200);
    expect(logo.headers['content-type']).toBe('image/svg+xml');
    expect(logo.text ?? logo.body.toString()).toContain('aria-label="Dhaka Books"');
    await t.http().put('/api/v1/invoices/template').set(asApp(app.TEST)).send({});
  });

  it("the sandbox checkout speaks the pay page's language: Bangla from a Bangla pay page, English by default", async () => {
    const { path } = await issue();
    const pay = await t.http().post(path).set('Cookie', 'joma_lang=bn').type('form').send({});
    expect(pay.status).toBe(303);
    const checkout = new URL(pay.headers.location as string);
    expect(checkout.pathname).toMatch(/^\/sandbox\/checkout\//);
    expect(checkout.searchParams.get('lang')).toBe('bn');
    const bn = await t.http().get(checkout.pathname + checkout.search);
    expect(bn.text).toContain('<html lang="bn">');
    expect(bn.text).toContain('জমা স্যান্ডবক্স গেটওয়ে');
    expect(bn.text).toContain('টেস্ট মোড: আসল কোনো টাকা লেনদেন হয় না।');
    expect(bn.text).toMatch(/id="sandbox-pay">পরিশোধ করুন ৳৫০\.০০<\/button>/);
    expect(bn.text).toContain('id="sandbox-cancel" class="secondary">বাতিল করুন</button>');
    const en = await t.http().get(checkout.pathname);
    expect(en.text).toContain('<html lang="en">');
    expect(en.text).toMatch(/id="sandbox-pay">Pay ৳50\.00<\/button>/);
    const byBrowser = await t
      .http()
      .get(checkout.pathname)
      .set('Accept-Language', 'bn-BD,bn;q=0.9');
    expect(byBrowser.text).toContain('<html lang="bn">');
  });

  it('keeps the language chosen with the toggle in a cookie, ahead of Accept-Language, on the page and the receipt', async () => {
    const { path } = await issue();
    const bangla = 'bn-BD,bn;q=0.9';
    const byBrowser = await t.http().get(path).set('Accept-Language', bangla);
    expect(byBrowser.text).toContain('<html lang="bn">');
    expect(byBrowser.headers['set-cookie']).toBeUndefined();

    const chosen = await t.http().get(`${path}?lang=en`).set('Accept-Language', bangla);
    expect(chosen.status).toBe(200);
    expect(chosen.text).toContain('<html lang="en">');
    // http PUBLIC_BASE_URL in tests: no Secure flag.
    expect(chosen.headers['set-cookie']).toEqual([
      'joma_lang=en; Path=/pay; Max-Age=31536000; SameSite=Lax; HttpOnly',
    ]);

    // Back from the gateway (no ?lang=), with the cookie: still English.
    const back = await t
      .http()
      .get(path)
      .set('Accept-Language', bangla)
      .set('Cookie', 'other=1; joma_lang=en');
    expect(back.text).toContain('<html lang="en">');
    expect(back.text).toContain('>Pay ৳50.00');
    expect(back.headers['set-cookie']).toBeUndefined();
    const receipt = await t
      .http()
      .get(`${path}/receipt`)
      .set('Accept-Language', bangla)
      .set('Cookie', 'joma_lang=en');
    expect(receipt.status).toBe(404);
    expect(receipt.text).toContain('No receipt yet');

    // The toggle wins over the kept choice, and a value not ours is ignored.
    const toggled = await t.http().get(`${path}?lang=bn`).set('Cookie', 'joma_lang=en');
    expect(toggled.text).toContain('<html lang="bn">');
    expect(toggled.headers['set-cookie']).toEqual([
      'joma_lang=bn; Path=/pay; Max-Age=31536000; SameSite=Lax; HttpOnly',
    ]);
    const junk = await t.http().get(`${path}?lang=fr`).set('Cookie', 'joma_lang=fr');
    expect(junk.text).toContain('<html lang="en">');
    expect(junk.headers['set-cookie']).toBeUndefined();
  });

  it('rejects a javascript: (or any non-http) logoUrl at PUT, leaving the template unchanged', async () => {
    const before = await t.http().get('/api/v1/invoices/template').set(asApp(app.TEST));
    for (const logoUrl of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:image/svg+xml,<svg onload=alert(1)>',
      '//evil.example/x.png',
    ]) {
      const res = await t
        .http()
        .put('/api/v1/invoices/template')
        .set(asApp(app.TEST))
        .send({ companyName: 'Acme', logoUrl });
      expect(res.status).toBe(400);
      expect(res.body.meta).toMatchObject({ success: false, errorCode: 'VALIDATION_FAILED' });
      expect(res.body.meta.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: 'logoUrl' })]),
      );
    }
    const after = await t.http().get('/api/v1/invoices/template').set(asApp(app.TEST));
    expect(after.body.data).toEqual(before.body.data);
  });

  it('rejects an accent colour that is not a hex colour', async () => {
    const res = await t
      .http()
      .put('/api/v1/invoices/template')
      .set(asApp(app.TEST))
      .send({ accentColor: 'red;} body{display:none' });
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
  });

  it('a VOID invoice shows the void message and no pay form; posting to it pays nothing', async () => {
    const { invoice, path } = await issue();
    const voided = await t.http().post(`/api/v1/invoices/${invoice.id}/void`).set(asApp(app.TEST));
    expect(voided.status).toBe(200);
    expect(voided.body.data.status).toBe('VOID');

    const res = await t.http().get(path);
    expect(res.status).toBe(200);
    expect(res.text).toContain('This invoice has been voided and cannot be paid.');
    expect(res.text).not.toContain('<form');
    expect(res.text).not.toContain('id="pay-button"');
    expect(res.text).toMatch(/data-testid="amount-due">৳0\.00</);

    const pay = await t.http().post(path);
    expect(pay.status).toBe(409);
    expect(pay.headers['content-type']).toMatch(/^text\/html/);
    expect(pay.text).toContain('This invoice is void.');
    expect(pay.text).not.toContain('<form');
    // The same refusal to a customer reading Bangla (the form posts with ?lang=).
    const bnPay = await t.http().post(`${path}?lang=bn`);
    expect(bnPay.status).toBe(409);
    expect(bnPay.text).toContain('<html lang="bn">');
    expect(bnPay.text).toContain('<p class="muted" role="status">এই ইনভয়েসটি বাতিল।</p>');
    const payments = await t.db.query(
      'SELECT count(*)::int AS n FROM payments WHERE invoice_id = $1',
      [invoice.id],
    );
    expect(payments.rows[0].n).toBe(0);
  });

  it('tells a returning customer how their last attempt ended (cancelled, expired), and nothing before any attempt', async () => {
    const { invoice, path } = await issue();
    expect((await t.http().get(path)).text).not.toContain('data-testid="attempt-notice"');

    const pay = await t.http().post(path);
    expect(pay.status).toBe(303);
    const checkout = new URL(pay.headers.location).pathname;
    const cancelled = await t.http().post(checkout).type('form').send({ outcome: 'cancel' });
    expect(cancelled.status).toBe(303);
    const back = new URL(cancelled.headers.location);
    const landed = await t.http().get(back.pathname + back.search);
    expect(landed.status).toBe(303);
    expect(new URL(landed.headers.location).pathname).toBe(path);
    const afterCancel = await t.http().get(path);
    expect(afterCancel.text).toContain(
      'Your last payment attempt was cancelled. You can try again.',
    );
    expect(afterCancel.text).toContain('id="pay-button"');

    // a new attempt is open: no notice while it is pending; once it expires, the page says so
    const again = await t.http().post(path);
    expect(again.status).toBe(303);
    expect((await t.http().get(path)).text).not.toContain('data-testid="attempt-notice"');
    const open = await t.db.query(
      `SELECT id FROM payments WHERE invoice_id = $1 AND status = 'PENDING'`,
      [invoice.id],
    );
    expect(open.rows).toHaveLength(1);
    const expired = await t
      .http()
      .post(`/api/v1/test-helpers/payments/${open.rows[0].id}/expire`)
      .set(asApp(app.TEST));
    expect(expired.status).toBe(200);
    expect(expired.body.data.status).toBe('EXPIRED');
    expect((await t.http().get(path)).text).toContain(
      'Your last checkout expired before it was completed. You can try again.',
    );
  });

  it('serves every hosted page with no-store, a script-free CSP that forbids framing, and nosniff', async () => {
    const { path } = await issue();
    const pay = await t.http().post(path);
    const checkoutPath = new URL(pay.headers.location).pathname;
    // a payment without return URLs ends on Joma's result page
    const standalone = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 5000, customerReference: 'cust-esc' });
    const session = new URL(standalone.body.data.checkoutUrl).pathname;
    const done = await t.http().post(session).type('form').send({ outcome: 'cancel' });
    const back = new URL(done.headers.location);
    const returned = await t.http().get(back.pathname + back.search);
    expect(returned.headers.location).toMatch(/^\/pay\/result\//);
    const pages = [
      path,
      checkoutPath,
      returned.headers.location as string,
      '/pay/doesnotexist000000000000000',
    ];
    for (const page of pages) {
      const res = await t.http().get(page);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['content-security-policy']).not.toContain('script-src');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('tells the customer to contact the merchant when the invoice cannot be paid online (LIVE without a real gateway)', async () => {
    const res = await t
      .http()
      .post('/api/v1/invoices')
      .set(asApp(app.LIVE))
      .send({
        customerReference: 'live-cust',
        lineItems: [{ description: 'Widget', qty: 1, unitAmountMinor: 5000 }],
      });
    expect(res.status).toBe(201);
    const path = new URL(res.body.data.payableUrl).pathname;
    const pay = await t.http().post(path);
    expect(pay.status).toBe(409);
    expect(pay.text).toContain('Online payment is not available for this invoice right now');
    expect(pay.text).not.toContain('Validation failed');
    expect(pay.text).not.toContain('sandbox');
    const rows = await t.db.query(
      `SELECT count(*)::int AS n FROM payments WHERE app_id = $1 AND mode = 'LIVE'`,
      [app.id],
    );
    expect(rows.rows[0].n).toBe(0);
  });

  it('does not reuse a checkout the customer already finished at the gateway when the return never came', async () => {
    const { invoice, path } = await issue();
    const first = await t.http().post(path);
    const firstCheckout = new URL(first.headers.location).pathname;
    // the customer cancels on the gateway's page, but the browser never comes back to Joma
    expect(
      (await t.http().post(firstCheckout).type('form').send({ outcome: 'cancel' })).status,
    ).toBe(303);
    const again = await t.http().post(path);
    expect(again.status).toBe(303);
    expect(new URL(again.headers.location).pathname).not.toBe(firstCheckout);
    const payments = (await t.http().get(`/api/v1/invoices/${invoice.id}`).set(asApp(app.TEST)))
      .body.data.payments;
    expect(payments.map((p: { status: string }) => p.status)).toEqual(['CANCELLED', 'PENDING']);
  });

  it('records a capture whose return never came when the customer clicks Pay again, instead of charging twice', async () => {
    const { invoice, path } = await issue();
    const first = await t.http().post(path);
    const checkout = new URL(first.headers.location).pathname;
    expect((await t.http().post(checkout).type('form').send({ outcome: 'pay' })).status).toBe(303);
    const again = await t.http().post(path);
    expect(again.status).toBe(409);
    expect(again.text).toContain('This invoice is paid');
    const data = (await t.http().get(`/api/v1/invoices/${invoice.id}`).set(asApp(app.TEST))).body
      .data;
    expect(data.status).toBe('PAID');
    expect(data.payments.map((p: { status: string }) => p.status)).toEqual(['SUCCEEDED']);
  });

  it('an unknown or malformed token is a 404 HTML page, for GET and POST', async () => {
    for (const token of ['A'.repeat(32), 'nope', '..%2F..%2Fetc']) {
      const get = await t.http().get(`/pay/${token}`);
      expect(get.status).toBe(404);
      expect(get.headers['content-type']).toMatch(/^text\/html/);
      expect(get.text).toContain('Invoice not found');
      expect(get.text).not.toContain('"errorCode"');
    }
    const post = await t.http().post(`/pay/${'B'.repeat(32)}`);
    expect(post.status).toBe(404);
    expect(post.headers['content-type']).toMatch(/^text\/html/);
    expect(post.text).toContain('Invoice not found');
    // In the customer's language, like the page the link was meant for.
    const bn = await t
      .http()
      .get(`/pay/${'C'.repeat(32)}`)
      .set('Accept-Language', 'bn-BD');
    expect(bn.status).toBe(404);
    expect(bn.text).toContain('<html lang="bn">');
    expect(bn.text).toContain('<h1>ইনভয়েস পাওয়া যায়নি</h1><p>এই পেমেন্ট লিংকটি সঠিক নয়।</p>');
    const bnPost = await t.http().post(`/pay/${'D'.repeat(32)}?lang=bn`);
    expect(bnPost.status).toBe(404);
    expect(bnPost.text).toContain('<html lang="bn">');
  });

  it('a payment link that leads to no page, or with a mangled escape, is the 404 page too, not JSON', async () => {
    const page = (res: { status: number; headers: Record<string, string>; text: string }) => [
      res.status,
      res.headers['content-type'],
      res.headers['content-security-policy'],
      /<h1>([^<]*)<\/h1>/.exec(res.text)?.[1],
    ];
    const html = 'text/html; charset=utf-8';
    const csp = expect.stringContaining("default-src 'none'");
    // A link cut short or with extra segments (a messaging app's mangling): no such route.
    for (const path of ['/pay', '/pay/', `/pay/${'E'.repeat(32)}/extra`, '/pay/result/a/b'])
      expect([path, ...page(await t.http().get(path))]).toEqual([
        path,
        404,
        html,
        csp,
        'Page not found',
      ]);
    // A broken escape Express cannot decode: still a page, with its 400.
    expect(page(await t.http().get('/pay/%ff'))).toEqual([400, html, csp, 'Page not found']);
    expect(
      page(await t.http().get('/api/v1/gateways/%ff/return').set('Accept-Language', 'bn')),
    ).toEqual([400, html, csp, 'পেজ পাওয়া যায়নি']);
    // In the customer's language: the toggle's kept choice, as on the pages themselves.
    const bn = await t.http().get('/pay/x/y').set('Cookie', 'joma_lang=bn');
    expect(page(bn)).toEqual([404, html, csp, 'পেজ পাওয়া যায়নি']);
    expect(bn.text).toContain('<html lang="bn">');
    // The API keeps its envelopes: a wrong path elsewhere, and methods a browser does not send here.
    const api = await t.http().get('/api/v1/nope');
    expect([api.status, api.body.meta.errorCode]).toEqual([404, 'ROUTE_NOT_FOUND']);
    const put = await t.http().put(`/pay/${'F'.repeat(32)}/extra`);
    expect([put.status, put.body.meta.errorCode]).toEqual([404, 'ROUTE_NOT_FOUND']);
  });

  it('a burst of Pay clicks opens one checkout: every click goes to the same payment', async () => {
    const { invoice, path } = await issue({ customerReference: 'cust-clicks' });
    const clicks = await Promise.all(Array.from({ length: 6 }, () => t.http().post(path)));
    expect(clicks.map((r) => r.status)).toEqual(Array(6).fill(303));
    expect(new Set(clicks.map((r) => r.headers.location)).size).toBe(1);
    const rows = await t.db.query(
      'SELECT status, amount_minor FROM payments WHERE invoice_id = $1',
      [invoice.id],
    );
    expect(rows.rows).toEqual([{ status: 'PENDING', amount_minor: 5000 }]);
  });

  it("with no lang, cookie or Accept-Language, the page and receipt speak the invoice's customerLanguage, else the app's defaultLanguage", async () => {
    const other = await createApp(t, 'Language Traders');
    const langOf = async (path: string, accept?: string) => {
      const req = t.http().get(path);
      const res = await (accept
        ? req.set('Accept-Language', accept)
        : req.unset('Accept-Language'));
      expect(res.status).toBe(200);
      return /<html lang="(bn|en)"/.exec(res.text)?.[1];
    };
    const issueFor = async (body: Record<string, unknown>) => {
      const invoice = await createInvoice(t, other.TEST, { customerReference: 'lang', ...body });
      return new URL(invoice.payableUrl).pathname;
    };
    const english = await issueFor({ customerLanguage: 'en' });
    const unset = await issueFor({});
    // The app's defaultLanguage is bn unless changed.
    expect(await langOf(english)).toBe('en');
    expect(await langOf(unset)).toBe('bn');
    // A choice still wins over both.
    expect(await langOf(unset, 'en-US')).toBe('en');
    expect(await langOf(`${english}?lang=bn`)).toBe('bn');
    // The receipt, too.
    const paid = await createInvoice(t, other.TEST, { customerReference: 'lang-paid' });
    const p = await createPayment(t, other.TEST, {
      amountMinor: paid.totalMinor,
      invoiceId: paid.id,
      customerReference: 'lang-paid',
    });
    expect((await settle(t, other.TEST, p.id)).status).toBe(200);
    const receipt = `${new URL(paid.payableUrl).pathname}/receipt`;
    expect(await langOf(receipt)).toBe('bn');
    // An app that speaks English by default.
    const root = await superAdminToken(t);
    const set = await t
      .http()
      .patch(`/api/v1/admin/apps/${other.id}/settings`)
      .set(bearer(root))
      .send({ defaultLanguage: 'en' });
    expect(set.status).toBe(200);
    expect(await langOf(unset)).toBe('en');
    expect(await langOf(receipt)).toBe('en');
    expect(await langOf(await issueFor({ customerLanguage: 'bn' }))).toBe('bn');
  });
});
