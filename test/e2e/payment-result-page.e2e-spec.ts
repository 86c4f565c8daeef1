import { RefundsService } from '../../src/refunds';
import { appFixture } from '../support/app-fixture';
import { asApp, bearer, CreatedApp, superAdminToken } from '../support/factories';
import { createInvoice, createPayment, expire, settle } from '../support/payments';
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

  /** The customer pays at the sandbox, but the gateway captures `more` paisa more than the payment asked. */
  async function capturedOtherAmount(checkoutUrl: string, more: number) {
    const session = new URL(checkoutUrl).pathname.split('/').pop();
    await t.db.query(
      'UPDATE sandbox_sessions SET amount_minor = amount_minor + $2 WHERE session_id = $1',
      [session, more],
    );
    const done = await t
      .http()
      .post(`/sandbox/checkout/${session}`)
      .type('form')
      .send({ outcome: 'pay' });
    const ret = new URL(done.headers.location);
    return t.http().get(ret.pathname + ret.search);
  }

  const refundedOf = async (id: number) =>
    Number(
      (await t.db.query('SELECT amount_refunded_minor FROM payments WHERE id = $1', [id])).rows[0]
        .amount_refunded_minor,
    );

  it('a capture of another amount on an invoice: received, not counted, refunded in full, with the way back to what is still due (both languages)', async () => {
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'mismatch-result' });
    const p = await createPayment(t, app.TEST, {
      amountMinor: 40000,
      invoiceId: invoice.id,
      customerReference: 'mismatch-result',
    });
    const back = await capturedOtherAmount(p.checkoutUrl, 100);
    expect([back.status, back.headers.location]).toEqual([303, `/pay/result/${p.reference}`]);
    const row = (
      await t.db.query('SELECT status, amount_minor, excess_minor FROM payments WHERE id = $1', [
        p.id,
      ])
    ).rows[0];
    expect(row).toEqual({ status: 'SUCCEEDED', amount_minor: 40100, excess_minor: 40100 });
    const refunds = await t.db.query(
      'SELECT amount_minor, reason FROM refunds WHERE payment_id = $1',
      [p.id],
    );
    expect(refunds.rows).toEqual([{ amount_minor: 40100, reason: 'amount_mismatch' }]);
    // Refunded automatically: PENDING until the re-check sends it to the gateway.
    expect(await refundedOf(p.id)).toBe(0);

    const en = await t.http().get(`/pay/result/${p.reference}`);
    expect(en.status).toBe(200);
    expect(en.text).toContain('<span data-testid="payment-amount">৳401.00</span>');
    expect(en.text).toContain(
      `<span class="status refunding" data-testid="payment-status">Being refunded</span>`,
    );
    expect(en.text).toContain(
      `<p data-testid="refund-message">We received your payment of ৳401.00, but it could not be counted, so it is being refunded to you in full.</p>`,
    );
    expect(en.text).toContain(
      `<a class="button" href="${invoice.payableUrl}?lang=en" data-testid="invoice-pay-page">Go back to the invoice to pay what is still due</a>`,
    );
    expect(en.text).not.toContain('Payment received. Thank you!');
    expect(en.text).not.toContain('>Paid</span>');

    const bn = await t.http().get(`/pay/result/${p.reference}?lang=bn`);
    expect(bn.text).toContain('<span data-testid="payment-amount">৳৪০১.০০</span>');
    expect(bn.text).toContain(`data-testid="payment-status">ফেরত দেওয়া হচ্ছে</span>`);
    expect(bn.text).toContain(
      `<p data-testid="refund-message">আপনার ৳৪০১.০০ পেমেন্ট পাওয়া গেছে, কিন্তু এটি গণনা করা যায়নি, তাই পুরো টাকা আপনাকে ফেরত দেওয়া হচ্ছে।</p>`,
    );
    expect(bn.text).toContain(
      `href="${invoice.payableUrl}?lang=bn" data-testid="invoice-pay-page">বাকি টাকা পরিশোধ করতে ইনভয়েসে ফিরে যান</a>`,
    );
    expect(bn.text).not.toContain('পেমেন্ট পাওয়া গেছে। ধন্যবাদ!');

    // The invoice's pay page: the capture is no payment of it; all of it is still due, with its Pay button.
    const pay = new URL(invoice.payableUrl).pathname;
    for (const [lang, notice, due] of [
      [
        'en',
        `৳401.00 received and being refunded (could not be counted toward this invoice).`,
        '৳1,000.00',
      ],
      ['bn', `৳৪০১.০০ পাওয়া গেছে এবং ফেরত দেওয়া হচ্ছে (এই ইনভয়েসে গণনা করা যায়নি)।`, '৳১,০০০.০০'],
    ]) {
      const page = await t.http().get(`${pay}?lang=${lang}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(
        `<p class="notice" role="status" data-testid="refund-notice">${notice}</p>`,
      );
      expect(page.text).toContain(`<td class="num" data-testid="amount-due">${due}</td>`);
      expect(page.text).toContain(`${lang === 'bn' ? 'পরিশোধযোগ্য' : 'Amount due'}</td>`);
      expect(page.text).toContain('id="pay-button"');
      expect(page.text).not.toContain('data-testid="paid-message"');
      expect(page.text).not.toContain('data-testid="payments-received"');
      expect(page.text).not.toContain(lang === 'bn' ? 'পেমেন্ট পাওয়া গেছে<' : 'Payment received');
    }
    // Nothing was counted on it: no receipt.
    expect((await t.http().get(`${pay}/receipt`)).status).toBe(404);

    // Once the gateway has given it back, the pages say so.
    t.clock.advance(61_000);
    try {
      await t.app.get(RefundsService).recheckPending();
    } finally {
      t.clock.reset();
    }
    expect(await refundedOf(p.id)).toBe(40100);
    const after = await t.http().get(`/pay/result/${p.reference}`);
    expect(after.text).toContain('data-testid="payment-status">Refunded</span>');
    expect(after.text).toContain('so it has been refunded to you in full.</p>');
    const bnAfter = await t.http().get(`/pay/result/${p.reference}?lang=bn`);
    expect(bnAfter.text).toContain('তাই পুরো টাকা আপনাকে ফেরত দেওয়া হয়েছে।</p>');
    const payAfter = await t.http().get(pay).set('Accept-Language', 'en');
    expect(payAfter.text).toContain(
      'data-testid="refund-notice">৳401.00 received and refunded (could not be counted toward this invoice).</p>',
    );
    expect(payAfter.text).toContain('id="pay-button"');
  });

  it('a capture of which part was more than its invoice needed: received, and the excess is refunded; the receipt counts only what the invoice took', async () => {
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'excess-result' });
    const late = await createPayment(t, app.TEST, {
      amountMinor: 60000,
      invoiceId: invoice.id,
      customerReference: 'excess-result',
    });
    expect((await expire(t, app.TEST, late.id)).status).toBe(200);
    const first = await createPayment(t, app.TEST, {
      amountMinor: 50000,
      invoiceId: invoice.id,
      customerReference: 'excess-result',
    });
    expect((await settle(t, app.TEST, first.id)).status).toBe(200);
    // The expired checkout is still paid at the gateway: ৳500 of its ৳600 pays the invoice, ৳100 is excess.
    expect((await settle(t, app.TEST, late.id)).status).toBe(200);
    const row = (
      await t.db.query('SELECT status, excess_minor FROM payments WHERE id = $1', [late.id])
    ).rows[0];
    expect(row).toEqual({ status: 'SUCCEEDED', excess_minor: 10000 });
    expect(await refundedOf(late.id)).toBe(0);

    const en = await t.http().get(`/pay/result/${late.reference}`);
    expect(en.text).toContain('data-testid="payment-status">Paid</span>');
    expect(en.text).toContain(
      `<p data-testid="refund-message">Payment received. Thank you! ৳100.00 of it was more than was needed and is being refunded to you.</p>`,
    );
    expect(en.text).not.toContain('data-testid="invoice-pay-page"');
    const bn = await t.http().get(`/pay/result/${late.reference}?lang=bn`);
    expect(bn.text).toContain(
      `<p data-testid="refund-message">পেমেন্ট পাওয়া গেছে। ধন্যবাদ! এর মধ্যে প্রয়োজনের চেয়ে বেশি ৳১০০.০০ আপনাকে ফেরত দেওয়া হচ্ছে।</p>`,
    );

    const pay = new URL(invoice.payableUrl).pathname;
    const page = await t.http().get(pay).set('Accept-Language', 'en');
    expect(page.text).toContain('data-testid="paid-message"');
    expect(page.text).toContain(
      `<p class="notice" role="status" data-testid="refund-notice">৳100.00 received beyond what this invoice needed, and being refunded.</p>`,
    );
    const rows = page.text.match(/<td class="num">৳[^<]*<\/td>\n<\/tr>/g);
    expect(rows).toEqual([
      '<td class="num">৳500.00</td>\n</tr>',
      '<td class="num">৳500.00</td>\n</tr>',
    ]);
    const bnPage = await t.http().get(`${pay}?lang=bn`);
    expect(bnPage.text).toContain(
      `data-testid="refund-notice">এই ইনভয়েসের প্রয়োজনের চেয়ে বেশি পাওয়া ৳১০০.০০ ফেরত দেওয়া হচ্ছে।</p>`,
    );
    const receipt = await t.http().get(`${pay}/receipt`).set('Accept-Language', 'en');
    expect(receipt.text).toContain('<span data-testid="receipt-paid">৳1,000.00</span>');
    expect(receipt.text).toContain('data-testid="refund-notice">৳100.00 received beyond');
    const bnReceipt = await t.http().get(`${pay}/receipt?lang=bn`);
    expect(bnReceipt.text).toContain('<span data-testid="receipt-paid">৳১,০০০.০০</span>');
  });
});
