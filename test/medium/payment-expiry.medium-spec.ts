import { InvoicePaymentsService } from '../../src/billing';
import { SandboxGateway } from '../../src/gateways';
import { InvoicesService } from '../../src/invoices';
import type { CreateInvoiceDto } from '../../src/invoices/dto/invoice.dto';
import { PaymentsService } from '../../src/payments';
import { PaymentExpiryJob } from '../../src/payments/payment-expiry.job';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { serviceFixture } from '../support/service-fixture';

/**
 * The expiry sweep's decisions as services on a real database (issue 57):
 * what is due expires once, a capture the gateway reports settles instead,
 * an unanswering gateway never stalls it, a late capture revives the
 * payment. Two replicas sweeping at once, and the customer's pages after the
 * deadline, stay in test/e2e/payment-expiry.e2e-spec.ts.
 */
describe('payment expiry sweep (medium tier)', () => {
  const f = serviceFixture({ balancedLedger: true, appName: 'Expiry' });
  let sweep: () => Promise<number>;
  beforeAll(() => {
    const job = f.get(PaymentExpiryJob);
    sweep = () => job.sweep();
  });
  /** Payments expire 30 minutes after they are created: one sweep 31 minutes on, the clock put back after. */
  async function sweepAfterDeadline<T>(inside: () => Promise<T> = sweep as () => Promise<T>) {
    f.c.clock.advanceMinutes(31);
    try {
      return await inside();
    } finally {
      f.c.clock.reset();
    }
  }

  const create = (customerReference: string) =>
    f.get(InvoicePaymentsService).createPayment(f.scope, { amountMinor: 50000, customerReference });
  const statusOf = async (id: number) => (await f.get(PaymentsService).get(f.scope, id)).status;
  const paymentEvents = async (id: number) =>
    (
      await f.c.db.query(
        `SELECT type, data FROM events WHERE app_id = $1 AND type LIKE 'payment.%' AND (data->>'payment_id')::bigint = $2 ORDER BY id`,
        [f.scope.appId, id],
      )
    ).rows as { type: string; data: Record<string, unknown> }[];

  it('a sweep expires every due payment once, with one payment.expired each; a payment not yet due stays PENDING', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push(Number((await create(`sweep-${i}`)).id));
    const notDue = await create('later');
    await f.c.db.query(`UPDATE payments SET expires_at = now() + interval '1 hour' WHERE id = $1`, [
      notDue.id,
    ]);
    expect(await sweepAfterDeadline()).toBe(12);
    const statuses = await f.c.db.query(
      `SELECT status, count(*)::int AS n FROM payments WHERE id = ANY($1) GROUP BY status`,
      [ids],
    );
    expect(statuses.rows).toEqual([{ status: 'EXPIRED', n: 12 }]);
    const expired = await f.c.db.query(
      `SELECT (data->>'payment_id')::int AS id FROM events WHERE type = 'payment.expired' AND (data->>'payment_id')::bigint = ANY($1)`,
      [ids],
    );
    expect(expired.rows).toHaveLength(12);
    expect(new Set(expired.rows.map((r) => r.id))).toEqual(new Set(ids));
    expect(await statusOf(notDue.id)).toBe('PENDING');
    // Nothing is due any more: the next sweep finds nothing.
    expect(await sweepAfterDeadline()).toBe(0);
    expect(await statusOf(notDue.id)).toBe('PENDING');
  });

  it('a due payment whose gateway cannot answer stays PENDING (the payer may have paid), is asked again after the lease, and is recorded when the gateway answers: never payment.expired first', async () => {
    const p = await create('gateway-down');
    const sandbox = f.get(SandboxGateway);
    const original = sandbox.queryStatus.bind(sandbox);
    let asked = 0;
    sandbox.queryStatus = () => {
      asked++;
      return Promise.reject(new Error('gateway unreachable'));
    };
    try {
      expect(await sweepAfterDeadline()).toBe(1);
      expect(asked).toBe(1);
      expect(await statusOf(p.id)).toBe('PENDING');
      // Within the lease it is not asked again: a failing gateway is not hammered.
      expect(await sweepAfterDeadline()).toBe(0);
      expect(asked).toBe(1);
    } finally {
      sandbox.queryStatus = original;
    }
    // The payer had paid; the gateway answers again once the lease has passed.
    await f.get(SandboxGateway).complete(p.gatewaySessionId!, 'pay');
    f.c.clock.advanceMinutes(31 + 6);
    try {
      expect(await sweep()).toBe(1);
    } finally {
      f.c.clock.reset();
    }
    expect(await statusOf(p.id)).toBe('SUCCEEDED');
    expect((await paymentEvents(p.id)).map((e) => e.type)).toEqual(['payment.succeeded']);
  });

  it('a gateway silent for 72 hours past the deadline: the payment expires then (and a capture found later would revive it)', async () => {
    const p = await create('gateway-down-for-days');
    const sandbox = f.get(SandboxGateway);
    const original = sandbox.queryStatus.bind(sandbox);
    sandbox.queryStatus = () => Promise.reject(new Error('gateway unreachable'));
    try {
      // Other tests' payments may fall due too: only this one is looked at.
      f.c.clock.advanceMinutes(30 + 71 * 60);
      expect(await sweep()).toBeGreaterThanOrEqual(1);
      expect(await statusOf(p.id)).toBe('PENDING');
      f.c.clock.advanceMinutes(2 * 60);
      expect(await sweep()).toBeGreaterThanOrEqual(1);
    } finally {
      sandbox.queryStatus = original;
      f.c.clock.reset();
    }
    expect(await statusOf(p.id)).toBe('EXPIRED');
    expect((await paymentEvents(p.id)).map((e) => e.type)).toEqual(['payment.expired']);
  });

  it("a payment left PENDING past its deadline (its gateway silent) no longer holds its invoice: the payer can pay the whole amount due another way, and the silent one's late capture would be excess", async () => {
    const invoice = await f.get(InvoicesService).create(f.scope, {
      customerReference: 'held-invoice',
      lineItems: [{ description: 'Item', qty: 1, unitAmountMinor: 70000 }],
    } as CreateInvoiceDto);
    const payFull = () =>
      f.get(InvoicePaymentsService).createPayment(f.scope, {
        amountMinor: 70000,
        customerReference: 'held-invoice',
        invoiceId: invoice.invoice.id,
      });
    const silent = await payFull();
    // Before its deadline it reserves the amount due.
    await expect(payFull()).rejects.toMatchObject({ code: 'AMOUNT_OUT_OF_RANGE' });
    const sandbox = f.get(SandboxGateway);
    const original = sandbox.queryStatus.bind(sandbox);
    sandbox.queryStatus = () => Promise.reject(new Error('gateway unreachable'));
    f.c.clock.advanceMinutes(31);
    try {
      await sweep();
      expect(await statusOf(silent.id)).toBe('PENDING');
      const other = await payFull();
      expect(other.amountMinor).toBe(70000);
    } finally {
      sandbox.queryStatus = original;
      f.c.clock.reset();
    }
  });

  it('settles instead of expiring a payment the gateway reports as captured', async () => {
    const p = await create('paid-no-return');
    // The customer pays, but the browser never comes back to Joma.
    expect(await f.get(SandboxGateway).complete(p.gatewaySessionId!, 'pay')).toMatchObject({
      refused: false,
    });
    expect(await sweepAfterDeadline()).toBe(1);
    expect(await statusOf(p.id)).toBe('SUCCEEDED');
    expect((await paymentEvents(p.id)).map((e) => e.type)).toEqual(['payment.succeeded']);
  });

  it('a capture after the deadline revives the expired payment: payment.expired, then payment.succeeded from expired', async () => {
    const p = await create('late');
    expect(await sweepAfterDeadline()).toBe(1);
    expect(await statusOf(p.id)).toBe('EXPIRED');
    // Expiry never closes the checkout: the customer still pays on it.
    const late = await f.get(TestHelpersService).settlePayment(f.scope, p.id, 'succeeded');
    expect(late).toMatchObject({ status: 'SUCCEEDED', excessMinor: 0 });
    const events = await paymentEvents(p.id);
    expect(events.map((e) => [e.type, e.data.previous_status])).toEqual([
      ['payment.expired', 'pending'],
      ['payment.succeeded', 'expired'],
    ]);
  });

  it('a gateway capture of another amount found by the sweep: SUCCEEDED, refunded whole (amount_mismatch), never EXPIRED; nothing left for the next sweep', async () => {
    const p = await create('mismatch');
    // The gateway reports a capture, but of another amount than this payment's.
    await f.c.db.query(
      `UPDATE sandbox_sessions SET status = 'CAPTURED', amount_minor = amount_minor + 1,
              txn_id = 'SBXTXNMISMATCH', completed_at = now() WHERE session_id = $1`,
      [p.gatewaySessionId],
    );
    await sweepAfterDeadline(async () => {
      expect(await sweep()).toBe(1);
      // Nothing is left for the next sweep to pick up again.
      expect(await sweep()).toBe(0);
    });
    const row = (
      await f.c.db.query(
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
    const refunds = await f.c.db.query(
      'SELECT amount_minor, reason, automatic FROM refunds WHERE payment_id = $1',
      [p.id],
    );
    expect(refunds.rows).toEqual([
      { amount_minor: p.amountMinor + 1, reason: 'amount_mismatch', automatic: true },
    ]);
    expect((await paymentEvents(p.id)).map((e) => e.type)).toEqual(['payment.succeeded']);
  });
});
