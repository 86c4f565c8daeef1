import { appFixture } from '../support/app-fixture';
import { asApp, bearer, CreatedApp, superAdminToken } from '../support/factories';
import { createPayment } from '../support/payments';
import { TestApp } from '../support/test-app';

/**
 * The page a customer lands on when a payment made without merchant return
 * URLs finishes (/pay/result/{reference}): the outcome in words, in Bangla
 * or English by the pay page's rule (?lang=, the kept choice, Accept-Language).
 */
describe('payment result page (HTTP)', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  /** A sandbox payment finished with `outcome`, and the result page the gateway's return sends the customer to. */
  async function finished(outcome: 'pay' | 'fail' | 'cancel') {
    const p = await createPayment(t, app.TEST, {
      amountMinor: 12345650,
      customerReference: outcome,
    });
    const session = new URL(p.checkoutUrl).pathname.split('/').pop();
    const done = await t.http().post(`/sandbox/checkout/${session}`).type('form').send({ outcome });
    const ret = new URL(done.headers.location);
    const back = await t.http().get(ret.pathname + ret.search);
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe(`/pay/result/${p.reference}`);
    return back.headers.location as string;
  }

  it('says how the payment ended, in English by default, with a toggle to Bangla', async () => {
    const path = await finished('pay');
    const res = await t.http().get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain('<span data-testid="payment-amount">৳1,23,456.50</span>');
    expect(res.text).toContain('data-testid="payment-status">Paid</span>');
    expect(res.text).toContain('Payment received. Thank you!');
    expect(res.text).toContain(`href="${path}?lang=bn" hreflang="bn" lang="bn"`);
    expect(res.text).not.toMatch(/<script/i);
  });

  it('speaks Bangla to a Bangla browser, and keeps a choice made with the toggle over it', async () => {
    const path = await finished('fail');
    const bangla = await t.http().get(path).set('Accept-Language', 'bn-BD,bn;q=0.9');
    expect(bangla.text).toContain('<html lang="bn">');
    expect(bangla.text).toContain('<span data-testid="payment-amount">৳১,২৩,৪৫৬.৫০</span>');
    expect(bangla.text).toContain('data-testid="payment-status">ব্যর্থ</span>');
    expect(bangla.text).toContain('পেমেন্ট সফল হয়নি। কোনো টাকা কাটা হয়নি।');
    expect(bangla.text).toContain(`href="${path}?lang=en" hreflang="en" lang="en"`);

    const chosen = await t.http().get(`${path}?lang=en`).set('Accept-Language', 'bn-BD,bn;q=0.9');
    expect(chosen.text).toContain('The payment failed. No money was taken.');
    expect(chosen.headers['set-cookie']).toEqual([
      'joma_lang=en; Path=/pay; Max-Age=31536000; SameSite=Lax; HttpOnly',
    ]);
    const cancelled = await t
      .http()
      .get(await finished('cancel'))
      .set('Accept-Language', 'bn-BD,bn;q=0.9')
      .set('Cookie', 'joma_lang=en');
    expect(cancelled.text).toContain('<html lang="en">');
    expect(cancelled.text).toContain('data-testid="payment-status">Cancelled</span>');
  });

  it("a customer waiting on it is sent on, once it has an outcome, to the merchant's URL the return would have used", async () => {
    const p = await createPayment(t, app.TEST, {
      amountMinor: 7000,
      customerReference: 'onward',
      successUrl: 'https://shop.example.com/paid',
      cancelUrl: 'https://shop.example.com/cart',
    });
    const waiting = await t.http().get(`/pay/result/${p.reference}`);
    expect([waiting.status, waiting.headers.refresh]).toEqual([200, '10']);
    const settled = await t
      .http()
      .post(`/api/v1/test-helpers/payments/${p.id}/settle`)
      .set(asApp(app.TEST))
      .send({ outcome: 'succeeded' });
    expect(settled.status).toBe(200);
    const onward = await t.http().get(`/pay/result/${p.reference}`);
    expect([onward.status, onward.headers.location]).toEqual([
      303,
      'https://shop.example.com/paid',
    ]);
  });

  it("an unknown reference, or a gateway return matching no payment, is a 404 page in the customer's language", async () => {
    const res = await t.http().get('/pay/result/pay_0_nope').set('Accept-Language', 'bn');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<html lang="bn">');
    expect(res.text).toContain('<h1>পেমেন্ট পাওয়া যায়নি</h1>');
    const back = await t.http().get('/api/v1/gateways/sandbox/return?session_id=sbx_nope');
    expect(back.status).toBe(404);
    expect(back.headers['content-type']).toMatch(/^text\/html/);
    expect(back.text).toContain('<h1>Payment not found</h1>');
    expect(back.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it('a PENDING payment says it is still being confirmed and reloads itself; a settled one does not', async () => {
    const pending = await createPayment(t, app.TEST, {
      amountMinor: 5000,
      customerReference: 'pending',
    });
    const res = await t.http().get(`/pay/result/${pending.reference}`);
    expect(res.status).toBe(200);
    expect(res.headers.refresh).toBe('10');
    expect(res.text).toContain('data-testid="payment-status">Pending</span>');
    expect(res.text).toContain('Please do not pay again yet');
    const done = await t.http().get(await finished('pay'));
    expect(done.text).toContain('data-testid="payment-status">Paid</span>');
    expect(done.headers.refresh).toBeUndefined();
  });

  it("names the merchant and offers the way back to the merchant's site, in both languages", async () => {
    const path = await finished('pay');
    const plain = await t.http().get(path);
    expect(plain.text).toContain(`<p data-testid="merchant">To ${app.name}</p>`);
    expect(plain.text).toContain(
      `<p class="muted" data-testid="back-to-merchant">You can close this page and return to ${app.name}.</p>`,
    );
    // The app names its site (its return-URL allowlist): the page links back to it.
    const settings = await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/settings`)
      .set(bearer(await superAdminToken(t)))
      .send({ returnUrlAllowlist: 'https://shop.dhaka-books.example' });
    expect(settings.status).toBe(200);
    const en = await t.http().get(path);
    expect(en.text).toContain(
      `<a class="button" href="https://shop.dhaka-books.example/" data-testid="back-to-merchant">Back to ${app.name}</a>`,
    );
    const bn = await t.http().get(`${path}?lang=bn`);
    expect(bn.text).toContain(`<p data-testid="merchant">প্রাপক: ${app.name}</p>`);
    expect(bn.text).toContain(`>${app.name}-এ ফিরে যান</a>`);
  });
});
