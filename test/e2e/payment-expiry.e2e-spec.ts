import { SandboxGateway } from '../../src/gateways/sandbox/sandbox.gateway';
import { PaymentExpiryJob } from '../../src/payments/payment-expiry.job';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { createPayment, eventsOf } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

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
    const notDue = await createPayment(a, app.TEST, { customerReference: 'later' });
    await a.db.query(`UPDATE payments SET expires_at = now() + interval '1 hour' WHERE id = $1`, [
      notDue.id,
    ]);
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
    expect(
      (await a.http().get(`/api/v1/payments/${notDue.id}`).set(asApp(app.TEST))).body.data.status,
    ).toBe('PENDING');
  });

  it('still expires due payments when the gateway cannot answer its status query', async () => {
    const p = await createPayment(a, app.TEST, { customerReference: 'gateway-down' });
    const sandbox = a.app.get(SandboxGateway);
    const original = sandbox.queryStatus.bind(sandbox);
    sandbox.queryStatus = () => Promise.reject(new Error('gateway unreachable'));
    a.clock.advanceMinutes(31);
    try {
      await a.app.get(PaymentExpiryJob).sweep();
    } finally {
      sandbox.queryStatus = original;
      a.clock.reset();
    }
    const after = await a.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST));
    expect(after.body.data.status).toBe('EXPIRED');
  });

  it('settles instead of expiring a payment the gateway reports as captured', async () => {
    const p = await createPayment(a, app.TEST, { customerReference: 'paid-no-return' });
    const session = new URL(p.checkoutUrl).pathname.split('/').pop();
    // the customer pays, but the browser never comes back to Joma
    expect(
      (await a.http().post(`/sandbox/checkout/${session}`).type('form').send({ outcome: 'pay' }))
        .status,
    ).toBe(303);
    a.clock.advanceMinutes(31);
    try {
      await a.app.get(PaymentExpiryJob).sweep();
    } finally {
      a.clock.reset();
    }
    const after = await a.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST));
    expect(after.body.data.status).toBe('SUCCEEDED');
    const types = (await eventsOf(a, app.id, 'payment.'))
      .filter((e) => e.data.payment_id === p.id)
      .map((e) => e.type);
    expect(types).toEqual(['payment.succeeded']);
  });

  it('lets the customer pay on the checkout after the deadline (late settlement revives the payment)', async () => {
    const p = await createPayment(a, app.TEST, { customerReference: 'late' });
    a.clock.advanceMinutes(31);
    try {
      await a.app.get(PaymentExpiryJob).sweep();
    } finally {
      a.clock.reset();
    }
    expect(
      (await a.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST))).body.data.status,
    ).toBe('EXPIRED');
    const session = new URL(p.checkoutUrl).pathname.split('/').pop();
    const page = await a.http().get(`/sandbox/checkout/${session}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="sandbox-pay"');
    const done = await a
      .http()
      .post(`/sandbox/checkout/${session}`)
      .type('form')
      .send({ outcome: 'pay' });
    const ret = new URL(done.headers.location);
    const back = await a.http().get(ret.pathname + ret.search);
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe(`/pay/result/${p.reference}`);
    const result = await a.http().get(back.headers.location);
    expect(result.text).toContain(
      '<span class="status succeeded" data-testid="payment-status">Paid</span>',
    );
    const events = (await eventsOf(a, app.id, 'payment.')).filter(
      (e) => e.data.payment_id === p.id,
    );
    expect(events.map((e) => [e.type, e.data.previous_status])).toEqual([
      ['payment.expired', 'pending'],
      ['payment.succeeded', 'expired'],
    ]);
  });

  it('a gateway capture of another amount found by the sweep: SUCCEEDED, refunded whole (amount_mismatch), never EXPIRED; nothing left for the next sweep', async () => {
    const p = await createPayment(a, app.TEST, { customerReference: 'mismatch' });
    const session = new URL(p.checkoutUrl).pathname.split('/').pop();
    // The gateway reports a capture, but of another amount than this payment's.
    await a.db.query(
      `UPDATE sandbox_sessions SET status = 'CAPTURED', amount_minor = amount_minor + 1,
              txn_id = 'SBXTXNMISMATCH', completed_at = now() WHERE session_id = $1`,
      [session],
    );
    a.clock.advanceMinutes(31);
    try {
      expect(await a.app.get(PaymentExpiryJob).sweep()).toBe(1);
      // Nothing is left for the next sweep to pick up again.
      expect(await a.app.get(PaymentExpiryJob).sweep()).toBe(0);
    } finally {
      a.clock.reset();
    }
    const row = (
      await a.db.query(
        'SELECT status, gateway_txn_id, amount_minor, excess_minor FROM payments WHERE id = $1',
        [p.id],
      )
    ).rows[0];
    expect(row).toEqual({
      status: 'SUCCEEDED',
      gateway_txn_id: 'SBXTXNMISMATCH',
      amount_minor: p.amountMinor + 1,
      excess_minor: p.amountMinor + 1,
    });
    const refunds = await a.db.query(
      'SELECT amount_minor, reason, automatic FROM refunds WHERE payment_id = $1',
      [p.id],
    );
    expect(refunds.rows).toEqual([
      { amount_minor: p.amountMinor + 1, reason: 'amount_mismatch', automatic: true },
    ]);
    const types = (await eventsOf(a, app.id, 'payment.'))
      .filter((e) => e.data.payment_id === p.id)
      .map((e) => e.type);
    expect(types).toEqual(['payment.succeeded']);
  });
});
