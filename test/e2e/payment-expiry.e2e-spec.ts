import { PaymentExpiryJob } from '../../src/payments/payment-expiry.job';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { createPayment, eventsOf } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * What only two running apps and HTTP show of the expiry sweep: replicas
 * sweeping at once, and the customer's pages after the deadline. The sweep's
 * decisions (what is due, a capture found instead, an unanswering gateway, a
 * late capture, a capture of another amount) are proven on the services in
 * test/medium/payment-expiry.medium-spec.ts.
 */
describe('payment expiry sweep', () => {
  let a: TestApp;
  let b: TestApp;
  let app: CreatedApp;
  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({ databaseUrl: a.databaseUrl });
    app = await createApp(a);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('expires due payments once even with two replicas sweeping at the same time', async () => {
    const created = [];
    for (let i = 0; i < 12; i++)
      created.push(await createPayment(a, app.TEST, { customerReference: `sweep-${i}` }));
    a.clock.advanceMinutes(31);
    b.clock.advanceMinutes(31);
    try {
      const [na, nb] = await Promise.all([
        a.app.get(PaymentExpiryJob).sweep(),
        b.app.get(PaymentExpiryJob).sweep(),
      ]);
      expect(na + nb).toBe(12);
    } finally {
      a.clock.reset();
      b.clock.reset();
    }
    const ids = created.map((p) => p.id);
    const statuses = await a.db.query(
      `SELECT status, count(*)::int AS n FROM payments WHERE id = ANY($1) GROUP BY status`,
      [ids],
    );
    expect(statuses.rows).toEqual([{ status: 'EXPIRED', n: 12 }]);
    const expiredEvents = (await eventsOf(a, app.id, 'payment.expired')).filter((e) =>
      ids.includes(e.data.payment_id),
    );
    expect(expiredEvents).toHaveLength(12);
    expect(new Set(expiredEvents.map((e) => e.data.payment_id)).size).toBe(12);
  });

  it('after the deadline the checkout still takes the payment; the return leads to the result page showing Paid', async () => {
    const p = await createPayment(a, app.TEST, { customerReference: 'late' });
    a.clock.advanceMinutes(31);
    try {
      await a.app.get(PaymentExpiryJob).sweep();
    } finally {
      a.clock.reset();
    }
    const expired = await a.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST));
    expect(expired.status).toBe(200);
    expect(expired.body.data.status).toBe('EXPIRED');
    const session = new URL(p.checkoutUrl).pathname.split('/').pop();
    const page = await a.http().get(`/sandbox/checkout/${session}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="sandbox-pay"');
    const done = await a
      .http()
      .post(`/sandbox/checkout/${session}`)
      .type('form')
      .send({ outcome: 'pay' });
    expect(done.status).toBe(303);
    const ret = new URL(done.headers.location);
    const back = await a.http().get(ret.pathname + ret.search);
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe(`/pay/result/${p.reference}`);
    const result = await a.http().get(back.headers.location);
    expect(result.text).toContain(
      '<span class="status succeeded" data-testid="payment-status">Paid</span>',
    );
    const after = await a.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST));
    expect(after.body.data.status).toBe('SUCCEEDED');
  });
});
