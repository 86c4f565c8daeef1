import { PaymentConfirmationsService } from '../../src/payments';
import { BkashFake } from '../support/bkash-fake';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { bkashPaymentId, setGateway } from '../support/gateways';
import { expectBalancedLedger } from '../support/ledger';
import { createInvoice, createPayment, eventsOf } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

const HOUR = 3_600_000;

/**
 * A capture that lands just before a cancel or a void is never lost
 * (decisions section 13, amended 2026-12-02): the cancel and the void ask
 * the gateway first and record a capture it reports; a cancelled checkout
 * the gateway did not confirm closed is asked about for 72 hours.
 */
describe('a capture just before a cancel or a void', () => {
  let t: TestApp;
  let bkash: BkashFake;
  let app: CreatedApp;
  beforeAll(async () => {
    bkash = await new BkashFake().start();
    t = await createTestApp({ config: { bkashSandboxUrl: bkash.baseUrl, gatewayTimeoutMs: 1000 } });
    app = await createApp(t);
    expect((await setGateway(t, app.id, 'bkash', 'TEST', bkash.app)).status).toBe(200);
  });
  afterEach(async () => {
    bkash.unhang();
    await expectBalancedLedger(t.db);
  });
  afterAll(async () => {
    await t.close();
    await bkash.stop();
  });

  const http = () => t.http();
  const paymentOf = async (id: number) =>
    (await http().get(`/api/v1/payments/${id}`).set(asApp(app.TEST))).body.data;
  const typesOf = async (id: number) =>
    (await eventsOf(t, app.id, 'payment.'))
      .filter((e) => e.data.payment_id === id)
      .map((e) => e.type);
  /** The payer pays on the sandbox's page; the browser never follows the redirect back. */
  const payAtSandbox = async (checkoutUrl: string) => {
    const session = new URL(checkoutUrl).pathname.split('/').pop();
    const paid = await http()
      .post(`/sandbox/checkout/${session}`)
      .type('form')
      .send({ outcome: 'pay' });
    expect(paid.status).toBe(303);
  };
  const openUntil = async (id: number) =>
    (await t.db.query(`SELECT checkout_open_until FROM payments WHERE id = $1`, [id])).rows[0]
      .checkout_open_until as Date | null;
  const sweep = () => t.app.get(PaymentConfirmationsService).recheckCancelled();

  it('cancel: the capture the gateway already made is recorded; the cancel is 409 with the payment SUCCEEDED', async () => {
    const p = await createPayment(t, app.TEST, {
      amountMinor: 5000,
      customerReference: 'race-c1',
      gateway: 'sandbox',
    });
    await payAtSandbox(p.checkoutUrl);
    const cancel = await http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
    expect(cancel.status).toBe(409);
    expect(cancel.body.meta.errorCode).toBe('INVALID_STATE');
    expect(await paymentOf(p.id)).toMatchObject({ status: 'SUCCEEDED', amountMinor: 5000 });
    expect(await typesOf(p.id)).toEqual(['payment.succeeded']);
  });

  it('void: the capture is recorded first and counted; the void is 409 on the now paid invoice', async () => {
    const inv = await createInvoice(t, app.TEST, { customerReference: 'race-v1' });
    const p = await createPayment(t, app.TEST, {
      amountMinor: inv.totalMinor,
      customerReference: 'race-v1',
      invoiceId: inv.id,
      gateway: 'sandbox',
    });
    await payAtSandbox(p.checkoutUrl);
    const voided = await http().post(`/api/v1/invoices/${inv.id}/void`).set(asApp(app.TEST));
    expect(voided.status).toBe(409);
    const after = (await http().get(`/api/v1/invoices/${inv.id}`).set(asApp(app.TEST))).body.data;
    expect(after).toMatchObject({ status: 'PAID', amountPaidMinor: inv.totalMinor });
    expect(await typesOf(p.id)).toEqual(['payment.succeeded']);
  });

  it('a cancel the sandbox confirms closed is asked about no more; an unpaid cancel is CANCELLED once', async () => {
    const p = await createPayment(t, app.TEST, {
      amountMinor: 5100,
      customerReference: 'race-c2',
      gateway: 'sandbox',
    });
    const cancel = await http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
    expect(cancel.status).toBe(200);
    expect(cancel.body.data.status).toBe('CANCELLED');
    expect(await openUntil(p.id)).toBeNull();
    expect(await typesOf(p.id)).toEqual(['payment.cancelled']);
  });

  it('bKash: a cancelled checkout is asked about for 72 hours; the payer who paid after the cancel is recorded (SUCCEEDED), never lost', async () => {
    const p = await createPayment(t, app.TEST, {
      amountMinor: 5200,
      customerReference: 'race-b1',
      gateway: 'bkash',
    });
    const paymentID = bkashPaymentId(p.checkoutUrl);
    const cancel = await http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
    expect(cancel.body.data.status).toBe('CANCELLED');
    const until = await openUntil(p.id);
    const left = until!.getTime() - t.clock.nowMs();
    expect(left).toBeGreaterThan(72 * HOUR - 60_000);
    expect(left).toBeLessThanOrEqual(72 * HOUR);
    // The payer, still on bKash's page, confirms; the browser never comes back.
    bkash.customerPays(paymentID);
    t.clock.advance(61_000);
    try {
      expect(await sweep()).toBe(1);
    } finally {
      t.clock.advance(-61_000);
    }
    expect(await paymentOf(p.id)).toMatchObject({ status: 'SUCCEEDED', amountMinor: 5200 });
    expect(bkash.payments.get(paymentID)!.state).toBe('Completed');
    expect(await typesOf(p.id)).toEqual(['payment.cancelled', 'payment.succeeded']);
    expect(await openUntil(p.id)).toBeNull();
  });

  it('bKash unreachable at the cancel: the cancel goes on, and the sweep finds the capture once bKash answers', async () => {
    const p = await createPayment(t, app.TEST, {
      amountMinor: 5300,
      customerReference: 'race-b2',
      gateway: 'bkash',
    });
    bkash.customerPays(bkashPaymentId(p.checkoutUrl));
    bkash.mode = '500';
    try {
      const cancel = await http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
      expect(cancel.body.data.status).toBe('CANCELLED');
      t.clock.advance(61_000);
      await sweep(); // still down: nothing decided
      expect((await paymentOf(p.id)).status).toBe('CANCELLED');
    } finally {
      bkash.mode = 'ok';
    }
    t.clock.advance(61_000);
    try {
      await sweep();
    } finally {
      t.clock.advance(-122_000);
    }
    expect((await paymentOf(p.id)).status).toBe('SUCCEEDED');
  });

  it('after 72 hours a cancelled checkout is asked about no more; one bKash reports ended is dropped at once', async () => {
    const p = await createPayment(t, app.TEST, {
      amountMinor: 5400,
      customerReference: 'race-b3',
      gateway: 'bkash',
    });
    await http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
    t.clock.advance(72 * HOUR + 1);
    try {
      const calls = bkash.calls.length;
      await sweep();
      expect(bkash.calls.length).toBe(calls);
    } finally {
      t.clock.advance(-(72 * HOUR + 1));
    }
    const q = await createPayment(t, app.TEST, {
      amountMinor: 5500,
      customerReference: 'race-b4',
      gateway: 'bkash',
    });
    await http().post(`/api/v1/payments/${q.id}/cancel`).set(asApp(app.TEST));
    bkash.customerCancels(bkashPaymentId(q.checkoutUrl));
    t.clock.advance(61_000);
    try {
      await sweep();
    } finally {
      t.clock.advance(-61_000);
    }
    expect(await openUntil(q.id)).toBeNull();
    expect((await paymentOf(q.id)).status).toBe('CANCELLED');
  });
});
