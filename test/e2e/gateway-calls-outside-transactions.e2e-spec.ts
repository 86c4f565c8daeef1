import { PaymentExpiryJob } from '../../src/payments/payment-expiry.job';
import { appFixture } from '../support/app-fixture';
import { asApp, CreatedApp } from '../support/factories';
import { createInvoice, createPayment, eventsOf, settle } from '../support/payments';
import { lockNowait, openTransactions, slowSandbox } from '../support/slow-gateway';
import { TestApp } from '../support/test-app';

/**
 * A real gateway takes seconds. While the (slowed) sandbox is being asked,
 * no transaction is open and no row is locked: the payment and its invoice
 * can be locked by anyone else (NOWAIT), and the database shows no open
 * transaction of the app.
 */
describe('gateway calls run with no transaction open', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  async function assertNothingHeld(paymentId?: number, invoiceId?: number) {
    expect(await openTransactions(t)).toBe(0);
    if (paymentId !== undefined) await lockNowait(t, 'payments', paymentId);
    if (invoiceId !== undefined) await lockNowait(t, 'invoices', invoiceId);
  }

  it('creates a payment: PENDING committed first, the checkout opened with nothing held, then attached', async () => {
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'slow-1' });
    const slow = slowSandbox(t);
    const pending = t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 40000, invoiceId: invoice.id });
    const responded = pending.then((r) => r);
    await slow.untilCalled();
    const [row] = (
      await t.db.query(
        `SELECT id, status, gateway_session_id FROM payments WHERE invoice_id = $1`,
        [invoice.id],
      )
    ).rows;
    expect(row).toMatchObject({ status: 'PENDING', gateway_session_id: null });
    await assertNothingHeld(Number(row.id), invoice.id);
    slow.release();
    const res = await responded;
    expect(res.status).toBe(201);
    expect(res.body.data.id).toBe(Number(row.id));
    expect(res.body.data.checkoutUrl).toMatch(/\/sandbox\/checkout\/sbx_/);
  });

  it('the pay button: no lock while the checkout is opened', async () => {
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'slow-2' });
    const token = invoice.payableUrl.split('/pay/')[1];
    const slow = slowSandbox(t);
    const clicked = t
      .http()
      .post(`/pay/${token}`)
      .redirects(0)
      .then((r) => r);
    await slow.untilCalled();
    const [row] = (await t.db.query(`SELECT id FROM payments WHERE invoice_id = $1`, [invoice.id]))
      .rows;
    await assertNothingHeld(Number(row.id), invoice.id);
    slow.release();
    const res = await clicked;
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/\/sandbox\/checkout\/sbx_/);
  });

  it('confirming: the gateway is asked with nothing held, then the capture and the invoice commit together', async () => {
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'slow-3' });
    const p = await createPayment(t, app.TEST, {
      amountMinor: 100000,
      invoiceId: invoice.id,
      customerReference: 'slow-3',
    });
    const slow = slowSandbox(t);
    const settling = settle(t, app.TEST, p.id).then((r) => r);
    await slow.untilCalled();
    await assertNothingHeld(p.id, invoice.id);
    slow.release();
    expect((await settling).status).toBe(200);
    const inv = (await t.db.query(`SELECT status FROM invoices WHERE id = $1`, [invoice.id]))
      .rows[0];
    expect(inv.status).toBe('PAID');
  });

  it('the expiry sweep: claims with a lease, asks the gateway with nothing held, expires in a short transaction', async () => {
    const p = await createPayment(t, app.TEST, { customerReference: 'slow-4' });
    await t.db.query(`UPDATE payments SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
      p.id,
    ]);
    const slow = slowSandbox(t);
    const job = t.app.get(PaymentExpiryJob);
    const sweeping = job.sweep();
    await slow.untilCalled();
    await assertNothingHeld(p.id);
    const claimed = (
      await t.db.query(`SELECT sweep_claimed_until > now() AS leased FROM payments WHERE id = $1`, [
        p.id,
      ])
    ).rows[0];
    expect(claimed.leased).toBe(true);
    slow.release();
    expect(await sweeping).toBe(1);
    const after = (await t.db.query(`SELECT status FROM payments WHERE id = $1`, [p.id])).rows[0];
    expect(after.status).toBe('EXPIRED');
    expect((await eventsOf(t, app.id, 'payment.expired')).map((e) => e.data.payment_id)).toEqual([
      p.id,
    ]);
  });

  it('a cancel asks the gateway with nothing locked, then closes the checkout after the cancel committed', async () => {
    const p = await createPayment(t, app.TEST, { customerReference: 'slow-5' });
    const status = async () =>
      (await t.db.query(`SELECT status FROM payments WHERE id = $1`, [p.id])).rows[0].status;
    const asking = slowSandbox(t);
    const cancelling = t
      .http()
      .post(`/api/v1/payments/${p.id}/cancel`)
      .set(asApp(app.TEST))
      .then((r) => r);
    // First the question about the checkout (decisions 13: a capture is never lost to a cancel).
    await asking.untilCalled();
    await assertNothingHeld(p.id);
    expect(await status()).toBe('PENDING');
    // Then, the cancel committed, the close (the delay set again before the request goes on).
    asking.release();
    const closing = slowSandbox(t);
    // Committed CANCELLED first; a call waiting after that is the close.
    for (let i = 0; i < 500 && (await status()) !== 'CANCELLED'; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await status()).toBe('CANCELLED');
    await closing.untilCalled();
    await assertNothingHeld(p.id);
    closing.release();
    expect((await cancelling).status).toBe(200);
  });

  it('a gateway that cannot open a checkout leaves the payment FAILED and answers 503', async () => {
    const slow = slowSandbox(t);
    const sandbox = slow.sandbox;
    const original = sandbox.createCheckout.bind(sandbox);
    sandbox.createCheckout = () => Promise.reject(new Error('gateway down'));
    try {
      slow.release();
      const res = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 40000, customerReference: 'slow-6' });
      expect(res.status).toBe(503);
      expect(res.body.meta.errorCode).toBe('SERVICE_UNAVAILABLE');
      const rows = (
        await t.db.query(
          `SELECT p.status FROM payments p JOIN customers c ON c.id = p.customer_id WHERE c.external_id = 'slow-6'`,
        )
      ).rows;
      expect(rows).toEqual([{ status: 'FAILED' }]);
    } finally {
      sandbox.createCheckout = original;
    }
  });
});
