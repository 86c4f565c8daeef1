import { appFixture } from '../support/app-fixture';
import { bearer, CreatedApp, superAdminToken } from '../support/factories';
import { createInvoice, settle } from '../support/payments';
import { TestApp } from '../support/test-app';

/**
 * What the customer sees on the hosted page: their name (never the
 * merchant's internal reference), an honest page when online payment cannot
 * work, and proof of payment once paid (receipt with transaction id, Dhaka
 * time, method and amount, and a way back to the merchant).
 */
describe('hosted pay page: honest and a receipt', () => {
  let t: TestApp;
  let app: CreatedApp;

  const fixture = appFixture();
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

  const pathOf = (invoice: Record<string, any>) => new URL(invoice.payableUrl).pathname;
  /** Asia/Dhaka is UTC+6 all year (no daylight saving): "10 Mar 2026, 14:15 (Dhaka time)". */
  const dhaka = (at: Date) => {
    const d = new Date(at.getTime() + 6 * 3600_000);
    const months = [
      'Jan',
      'Feb',
      'Mar',
      'Apr',
      'May',
      'Jun',
      'Jul',
      'Aug',
      'Sep',
      'Oct',
      'Nov',
      'Dec',
    ];
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} (Dhaka time)`;
  };

  it('shows the customer name, or nothing: never the internal customerReference', async () => {
    const named = await createInvoice(t, app.TEST, {
      customerReference: 'cust_secret_42',
      customerName: 'Rahim Uddin',
    });
    const namedPage = await t.http().get(pathOf(named));
    expect(namedPage.text).toContain(`Invoice <strong>${named.number}</strong> for Rahim Uddin`);
    expect(namedPage.text).not.toContain('cust_secret_42');

    const anonymous = await createInvoice(t, app.TEST, { customerReference: 'cust_internal_99' });
    const anonPage = await t.http().get(pathOf(anonymous));
    expect(anonPage.status).toBe(200);
    expect(anonPage.text).toContain(`Invoice <strong>${anonymous.number}</strong>\n`);
    expect(anonPage.text).not.toContain('cust_internal_99');
  });

  it('a LIVE invoice with no gateway for LIVE says so prominently and shows no Pay button', async () => {
    const live = await createInvoice(t, app.LIVE, { customerReference: 'live-1' });
    const res = await t.http().get(pathOf(live));
    expect(res.status).toBe(200);
    expect(res.text).toMatch(
      /<p class="notice unavailable" role="alert" data-testid="unavailable">Online payment is not available for this invoice\. Please contact .+ to pay it another way\.<\/p>/,
    );
    expect(res.text).not.toContain('id="pay-button"');
    expect(res.text).not.toContain('<form');
    // A TEST invoice of the same app has its button.
    const test = await createInvoice(t, app.TEST);
    const testPage = await t.http().get(pathOf(test));
    expect(testPage.text).toContain('id="pay-button"');
    expect(testPage.text).not.toContain('data-testid="unavailable"');
  });

  it('no receipt before anything is paid: 404 page', async () => {
    const invoice = await createInvoice(t, app.TEST);
    const res = await t.http().get(`${pathOf(invoice)}/receipt`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('No receipt yet');
  });

  it('once paid: transaction id, Dhaka time, method and amount on the page, a printable receipt, a link back to the merchant', async () => {
    const token = await superAdminToken(t);
    const settings = await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/settings`)
      .set(bearer(token))
      .send({ defaultSuccessUrl: 'https://shop.dhaka-books.test/thanks' });
    expect(settings.status).toBe(200);
    const invoice = await createInvoice(t, app.TEST, {
      customerName: 'Karim',
      lineItems: [{ description: 'Novel', qty: 2, unitAmountMinor: 45000 }],
    });
    const click = await t.http().post(pathOf(invoice));
    expect(click.status).toBe(303);
    const payment = (
      await t.db.query('SELECT id FROM payments WHERE invoice_id = $1', [invoice.id])
    ).rows[0] as { id: number };
    expect((await settle(t, app.TEST, payment.id)).status).toBe(200);
    const row = (
      await t.db.query(
        'SELECT gateway_txn_id, payment_method_label, succeeded_at FROM payments WHERE id = $1',
        [payment.id],
      )
    ).rows[0] as { gateway_txn_id: string; payment_method_label: string; succeeded_at: Date };
    const { gateway_txn_id: txn, payment_method_label: method } = row;
    expect(txn).toBeTruthy();
    expect(method).toBeTruthy();
    const when = dhaka(row.succeeded_at);

    const paid = await t.http().get(pathOf(invoice));
    expect(paid.text).toContain('data-testid="paid-message"');
    const received = paid.text.slice(paid.text.indexOf('data-testid="payments-received"'));
    expect(received).toContain(`<td class="txn" data-testid="txn-id">${txn}</td>`);
    expect(received).toContain(when);
    expect(received).toContain(`<td>${method}</td>`);
    expect(received).toContain('৳900.00');
    expect(received).toContain(`href="${pathOf(invoice)}/receipt?lang=en"`);
    expect(received).toContain(
      'href="https://shop.dhaka-books.test/thanks" data-testid="merchant-link"',
    );

    const receipt = await t.http().get(`${pathOf(invoice)}/receipt`);
    expect(receipt.status).toBe(200);
    expect(receipt.headers['content-type']).toMatch(/^text\/html/);
    expect(receipt.headers['cache-control']).toContain('no-store');
    expect(receipt.text).toContain('Payment receipt');
    expect(receipt.text).toContain(`Invoice <strong>${invoice.number}</strong> for Karim`);
    expect(receipt.text).toContain(txn);
    expect(receipt.text).toContain(when);
    expect(receipt.text).toContain('<span data-testid="receipt-paid">৳900.00</span>');
    expect(receipt.text).toContain('@media print');
    expect(receipt.text).not.toMatch(/<script/i);

    // The same proof in Bangla: by Accept-Language or the page's toggle, Bengali digits and Dhaka time.
    const bnDigits = (s: string) => s.replace(/[0-9]/g, (d) => '০১২৩৪৫৬৭৮৯'[Number(d)]);
    const bnPaid = await t.http().get(pathOf(invoice)).set('Accept-Language', 'bn-BD,bn;q=0.9');
    const bnReceived = bnPaid.text.slice(bnPaid.text.indexOf('data-testid="payments-received"'));
    expect(bnReceived).toContain('<h2>পেমেন্ট পাওয়া গেছে</h2>');
    expect(bnReceived).toContain('৳৯০০.০০');
    expect(bnReceived).toContain('(ঢাকা সময়)');
    expect(bnReceived).toContain(`href="${pathOf(invoice)}/receipt?lang=bn"`);
    const bnReceipt = await t.http().get(`${pathOf(invoice)}/receipt?lang=bn`);
    expect(bnReceipt.status).toBe(200);
    expect(bnReceipt.text).toContain('<html lang="bn">');
    expect(bnReceipt.text).toContain('<h2>পেমেন্টের রসিদ</h2>');
    expect(bnReceipt.text).toContain(txn);
    expect(bnReceipt.text).toContain(bnDigits(`${row.succeeded_at.getUTCFullYear()}`));
    expect(bnReceipt.text).toContain('<span data-testid="receipt-paid">৳৯০০.০০</span>');
    expect(bnReceipt.text).not.toContain('Payment receipt');
    expect(bnReceipt.text).toContain(`href="${pathOf(invoice)}/receipt?lang=en"`);
    const none = await t.http().get(`${pathOf(await createInvoice(t, app.TEST))}/receipt?lang=bn`);
    expect(none.status).toBe(404);
    expect(none.text).toContain('এখনও কোনো রসিদ নেই');
    expect(none.text).toContain('<html lang="bn">');
  });

  it('a capture of another amount from the Pay button: the page says it is being refunded and still asks for what is due, in both languages', async () => {
    const invoice = await createInvoice(t, app.TEST, {
      customerReference: 'mismatch-page',
      lineItems: [{ description: 'Novel', qty: 2, unitAmountMinor: 45000 }],
    });
    const click = await t.http().post(pathOf(invoice));
    expect(click.status).toBe(303);
    // The customer pays at the sandbox, which captures ৳1 more than asked (amount_mismatch).
    const session = new URL(click.headers.location).pathname.split('/').pop();
    await t.db.query(
      'UPDATE sandbox_sessions SET amount_minor = amount_minor + 100 WHERE session_id = $1',
      [session],
    );
    const done = await t
      .http()
      .post(`/sandbox/checkout/${session}`)
      .type('form')
      .send({ outcome: 'pay' });
    const ret = new URL(done.headers.location);
    const back = await t.http().get(ret.pathname + ret.search);
    expect(back.status).toBe(303);
    expect(new URL(back.headers.location).pathname).toBe(pathOf(invoice));
    const payment = (
      await t.db.query(
        'SELECT status, amount_minor, excess_minor FROM payments WHERE invoice_id = $1',
        [invoice.id],
      )
    ).rows;
    expect(payment).toEqual([{ status: 'SUCCEEDED', amount_minor: 90100, excess_minor: 90100 }]);

    const en = await t.http().get(pathOf(invoice));
    expect(en.text).toContain('data-testid="invoice-status">Issued</span>');
    expect(en.text).toContain(
      '<p class="notice" role="status" data-testid="refund-notice">৳901.00 received and being refunded (could not be counted toward this invoice).</p>',
    );
    expect(en.text).toContain(
      'Amount due</td><td class="num" data-testid="amount-due">৳900.00</td>',
    );
    expect(en.text).toContain('id="pay-button"');
    expect(en.text).not.toContain('Payment received');
    expect(en.text).not.toContain('data-testid="paid-message"');
    expect(en.text).not.toContain('data-testid="receipt-link"');

    const bn = await t.http().get(pathOf(invoice)).set('Accept-Language', 'bn-BD,bn;q=0.9');
    expect(bn.text).toContain(
      'data-testid="refund-notice">৳৯০১.০০ পাওয়া গেছে এবং ফেরত দেওয়া হচ্ছে (এই ইনভয়েসে গণনা করা যায়নি)।</p>',
    );
    expect(bn.text).toContain(
      'পরিশোধযোগ্য</td><td class="num" data-testid="amount-due">৳৯০০.০০</td>',
    );
    expect(bn.text).toContain('id="pay-button"');
    expect(bn.text).not.toContain('পেমেন্ট পাওয়া গেছে<');
    expect(bn.text).not.toContain('data-testid="paid-message"');
    // No receipt: nothing was counted on the invoice.
    expect((await t.http().get(`${pathOf(invoice)}/receipt`)).status).toBe(404);
  });
});
