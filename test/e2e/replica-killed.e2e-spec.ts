import { RefundsService } from '../../src/refunds';
import { appFixture } from '../support/app-fixture';
import { ChildReplica } from '../support/child-replica';
import { asApp, type CreatedApp } from '../support/factories';
import { withWriteHeld } from '../support/faults';
import { createInvoice, createPayment, eventsOf, settle } from '../support/payments';
import type { TestApp } from '../support/test-app';

/**
 * Issue 43 (build point 3): a replica killed with SIGKILL between any two
 * steps of a refund or a payment. The replica is the real entry point in a
 * child process on the same database; the kill lands exactly between two
 * steps (the first committed, the write of the next one waiting on a lock
 * the test holds). Whatever the client does next (nothing, or the same
 * request under the same Idempotency-Key on the surviving replica), the
 * money moves once: one refund record, sent to the gateway once, SUCCEEDED
 * with one event; one payment record for one key.
 */
describe('a replica killed between the steps of a money operation', () => {
  const fixture = appFixture({ balancedLedger: true });
  let t: TestApp;
  let app: CreatedApp;
  let replica: ChildReplica;
  let seq = 0;
  beforeAll(async () => {
    ({ t, app } = fixture);
    replica = new ChildReplica(t);
    await replica.ready();
  }, 120_000);
  afterAll(() => replica?.close());

  async function captured(amountMinor = 50_000) {
    const p = await createPayment(t, app.TEST, { amountMinor, customerReference: `k-${++seq}` });
    expect((await settle(t, app.TEST, p.id)).status).toBe(200);
    return p.id as number;
  }

  /**
   * Sends each request to the replica under its key and kills the replica
   * once all of them wait at `table.column` (one kill interrupts them all).
   */
  async function killedAt(
    table: string,
    column: string,
    requests: { path: string; body: object; key: string }[],
  ): Promise<void> {
    const { base } = await replica.ready();
    let sent: Promise<number>[] = [];
    await withWriteHeld(t.db, table, column, async (stopped) => {
      // Sent once the write is held (sent earlier, a fast replica could pass it first).
      sent = requests.map((r) =>
        fetch(`${base}${r.path}`, {
          method: 'POST',
          headers: {
            ...asApp(app.TEST),
            'Idempotency-Key': r.key,
            'content-type': 'application/json',
          },
          body: JSON.stringify(r.body),
        }).then(
          (res) => res.status,
          () => 0,
        ),
      );
      // All of them wait at the held write before any answers.
      expect(await stopped(Promise.race(sent), requests.length)).not.toBeNull();
      await replica.kill();
    });
    // Every client saw its connection drop, no answer.
    expect(await Promise.all(sent)).toEqual(requests.map(() => 0));
  }

  /** The re-check, a few times over an hour of the test clock (each pause grows with age). */
  async function recheckFor(minutes: number) {
    for (let m = 0; m < minutes; m += 10) {
      t.clock.advance(10 * 60_000);
      await t.app.get(RefundsService).recheckPending();
    }
  }

  async function refundsOf(paymentId: number) {
    return (
      await t.db.query(
        'SELECT id, status, amount_minor, send_attempts FROM refunds WHERE payment_id = $1 ORDER BY id',
        [paymentId],
      )
    ).rows;
  }

  /** What the sandbox gateway itself applied for the payment (its own table). */
  async function refundedAtGateway(paymentId: number): Promise<number> {
    const { rows } = await t.db.query(
      `SELECT s.refunded_minor FROM sandbox_sessions s
         JOIN payments p ON p.gateway_session_id = s.session_id WHERE p.id = $1`,
      [paymentId],
    );
    return Number(rows[0].refunded_minor);
  }

  async function expectRefundedOnce(paymentId: number, amountMinor: number) {
    const rows = await refundsOf(paymentId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'SUCCEEDED', amount_minor: amountMinor });
    expect(await refundedAtGateway(paymentId)).toBe(amountMinor);
    const succeeded = (await eventsOf(t, app.id, 'refund.succeeded')).filter(
      (e) => e.data.refund_id === rows[0].id,
    );
    expect(succeeded).toHaveLength(1);
    const [payment] = (
      await t.db.query('SELECT amount_refunded_minor FROM payments WHERE id = $1', [paymentId])
    ).rows;
    expect(Number(payment.amount_refunded_minor)).toBe(amountMinor);
  }

  // The steps of a refund after it is opened (committed): claimed for a
  // trip, marked sent, then the gateway's answer recorded.
  const steps: [string, string][] = [
    ['opened, before its trip is claimed', 'claimed_until'],
    ['claimed, before it is marked sent', 'submitted_at'],
    ['sent to the gateway, before its answer is recorded', 'status'],
  ];

  it.each(steps)(
    'a refund killed when %s is finished once: by the re-check, or resumed by a retry under its key',
    async (_label, column) => {
      // Two refunds stopped by one kill: nobody retries the first; the
      // second is retried under its key on the other replica.
      const left = await captured();
      const retried = await captured();
      const key = `kill-${++seq}`;
      const path = (id: number) => `/api/v1/payments/${id}/refunds`;
      await killedAt('refunds', column, [
        { path: path(left), body: { amountMinor: 7_000 }, key: `kill-${++seq}` },
        { path: path(retried), body: { amountMinor: 7_000 }, key },
      ]);
      expect((await refundsOf(left)).map((r) => r.status)).toEqual(['PENDING']);
      expect((await refundsOf(retried)).map((r) => r.status)).toEqual(['PENDING']);

      const retry = () =>
        t
          .http()
          .post(path(retried))
          .set({ ...asApp(app.TEST), 'Idempotency-Key': key })
          .send({ amountMinor: 7_000 });
      let after = await retry();
      if (after.status === 409) {
        // The dead replica's lease on the key still runs (by this replica's clock): wait it out.
        expect(after.body.meta.errorCode).toBe('IDEMPOTENCY_KEY_IN_USE');
        t.clock.advance(61_000);
        after = await retry();
      }
      expect(after.status).toBe(201);
      const [opened] = await refundsOf(retried);
      expect(after.body.data.id).toBe(opened.id);

      await recheckFor(60);
      await expectRefundedOnce(left, 7_000);
      await expectRefundedOnce(retried, 7_000);
      // And the key keeps answering with that refund.
      const later = await retry();
      expect(later.status).toBe(201);
      expect(later.body.data.id).toBe(opened.id);
    },
  );

  it('a payment killed after its checkout opened is resumed by the retry: one payment, one checkout', async () => {
    const invoice = await createInvoice(t, app.TEST, { customerReference: `k-${++seq}` });
    const key = `kill-${++seq}`;
    const body = { invoiceId: invoice.id, amountMinor: 40_000 };
    await killedAt('payments', 'gateway_session_id', [{ path: '/api/v1/payments', body, key }]);
    const count = async () =>
      (
        await t.db.query('SELECT count(*)::int AS n FROM payments WHERE invoice_id = $1', [
          invoice.id,
        ])
      ).rows[0].n as number;
    expect(await count()).toBe(1);
    t.clock.advance(61_000);
    const retry = await t
      .http()
      .post('/api/v1/payments')
      .set({ ...asApp(app.TEST), 'Idempotency-Key': key })
      .send(body);
    expect(retry.status).toBe(201);
    expect(await count()).toBe(1);
    const [row] = (
      await t.db.query('SELECT id, gateway_session_id FROM payments WHERE invoice_id = $1', [
        invoice.id,
      ])
    ).rows;
    expect(retry.body.data.id).toBe(row.id);
    expect(row.gateway_session_id).not.toBeNull();
    // One checkout at the gateway for it: the one the killed replica opened, or the retry's, not both in use.
    expect((await settle(t, app.TEST, row.id)).status).toBe(200);
    const [inv] = (
      await t.db.query('SELECT amount_paid_minor FROM invoices WHERE id = $1', [invoice.id])
    ).rows;
    expect(Number(inv.amount_paid_minor)).toBe(40_000);
  });
});
