import { AppsService } from '../../src/apps';
import { InvoicePaymentsService } from '../../src/billing';
import { SandboxGateway } from '../../src/gateways';
import { InvoicesService } from '../../src/invoices';
import { PaymentSimulationService, PaymentsService } from '../../src/payments';
import { RefundsService } from '../../src/refunds';
import { RefundsRepository } from '../../src/refunds/refunds.repository';
import { REFUND_DECIDE_MS } from '../../src/refunds/refunds.service';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { accountBalances } from '../support/ledger';
import { captureNoRefund, NO_REFUND, NoRefundGatewayModule } from '../support/no-refund-gateway';
import { serviceFixture } from '../support/service-fixture';
import { insertApp } from '../support/test-context';

type Scope = { appId: number; mode: 'TEST' };

/**
 * Manual refunds (decisions section 22), as services on a real database: a
 * gateway whose adapter has no refund call (the test gateway `norefund`,
 * standing for Nagad) has its refunds opened PENDING and `manual`, the app's
 * own, approved ones and automatic ones alike; they are never sent, never
 * re-checked and never expire, count against what is still refundable like
 * any pending refund, and end SUCCEEDED only when an operator completes
 * them, through the same path a gateway's answer takes (ledger, event, the
 * payment's refunded total), audited. The HTTP contract is in
 * test/e2e/manual-refunds.e2e-spec.ts.
 */
describe('manual refunds (medium tier: services on a real database)', () => {
  const f = serviceFixture({
    balancedLedger: true,
    appName: 'Manual refunds',
    imports: [NoRefundGatewayModule],
  });
  let seq = 0;
  let refunds: RefundsService;
  let payments: PaymentsService;
  beforeAll(() => {
    refunds = f.get(RefundsService);
    payments = f.get(PaymentsService);
  });
  afterEach(() => f.c.clock.reset());

  async function newApp(threshold?: number): Promise<Scope> {
    const appId = await insertApp(f.c.db, `Manual ${++seq}`);
    if (threshold !== undefined)
      await f.get(AppsService).updateSettings(appId, { refundApprovalThresholdMinor: threshold });
    return { appId, mode: 'TEST' };
  }
  /** A captured payment of `amountMinor` through the gateway with no refund call. */
  async function captured(amountMinor: number, scope: Scope = f.scope) {
    const p = await f.get(InvoicePaymentsService).createPayment(scope, {
      amountMinor,
      customerReference: `m-${++seq}`,
      gateway: NO_REFUND,
    });
    await captureNoRefund(f.c.app, f.c.db, p.id);
    return p;
  }
  const row = async (id: number) =>
    (
      await f.c.db.query(
        `SELECT status, manual, automatic, approval_required, submitted_at, send_attempts,
                claimed_until, recheck_at, gateway_refund_id, failure_reason
           FROM refunds WHERE id = $1`,
        [id],
      )
    ).rows[0] as Record<string, unknown>;
  const eventsOf = async (appId: number) =>
    (
      await f.c.db.query(
        `SELECT type, data FROM events WHERE app_id = $1 AND type LIKE 'refund.%' ORDER BY id`,
        [appId],
      )
    ).rows as { type: string; data: Record<string, any> }[];
  /** Waits (bounded) until `n` sessions of the test's database wait for a lock. */
  const untilLockWaiters = async (n: number) => {
    for (let i = 0; i < 500; i++) {
      const { rows } = await f.c.db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows[0].n >= n) return;
      await new Promise((ok) => setTimeout(ok, 20));
    }
    throw new Error(`no ${n} lock waiters after 10 s`);
  };
  const ledgerOf = async (refundId: number) =>
    (
      await f.c.db.query(
        `SELECT kind FROM ledger_transactions WHERE source_id = $1 AND kind LIKE 'refund_%' ORDER BY id`,
        [refundId],
      )
    ).rows.map((r) => r.kind as string);

  it('a refund of a payment whose gateway has no refund call: PENDING and manual, never sent, its amount reserved', async () => {
    const a = await newApp();
    const p = await captured(100_000, a);
    const r = await refunds.create(a, p.id, { amountMinor: 40_000, reason: 'customer asked' });
    expect(r).toMatchObject({ status: 'PENDING', manual: true, approvalRequired: false });
    expect(await row(r.id)).toMatchObject({
      status: 'PENDING',
      manual: true,
      automatic: false,
      submitted_at: null,
      send_attempts: 0,
      claimed_until: null,
      failure_reason: null,
    });
    expect((await eventsOf(a.appId)).map((e) => e.type)).toEqual(['refund.pending']);
    expect(await ledgerOf(r.id)).toEqual(['refund_reserved']);
    expect(await accountBalances(f.c.db, a.appId)).toMatchObject({
      gateway_clearing: 100_000,
      refunds_pending: -40_000,
      merchant_payable: -60_000,
    });
    // A refund of the sandbox, beside it, is sent and SUCCEEDED at once as ever.
    const sbx = await f.get(InvoicePaymentsService).createPayment(a, {
      amountMinor: 10_000,
      customerReference: `m-${++seq}`,
    });
    await f.get(TestHelpersService).settlePayment(a, sbx.id, 'succeeded');
    expect(await refunds.create(a, sbx.id, {})).toMatchObject({
      status: 'SUCCEEDED',
      manual: false,
    });
  });

  it('never claimed by the re-check, never FAILED by the 72-hour rule, and a check now is 409 saying it is manual', async () => {
    const a = await newApp();
    const p = await captured(50_000, a);
    const r = await refunds.create(a, p.id, {});
    f.c.clock.advance(REFUND_DECIDE_MS + 3_600_000);
    expect(await refunds.recheckPending()).toBe(0);
    expect(await row(r.id)).toMatchObject({
      status: 'PENDING',
      manual: true,
      send_attempts: 0,
      claimed_until: null,
      recheck_at: null,
    });
    // Not even listed for the re-check (where it would take a place among the 100 it sends or asks about).
    const due = await f.get(RefundsRepository).awaitingGateway(f.c.clock.now(), 1_000);
    expect(due).not.toContain(r.id);
    await expect(refunds.checkNow(r.id)).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringContaining('This refund is manual'),
    });
    expect(await row(r.id)).toMatchObject({ status: 'PENDING', send_attempts: 0 });
    expect((await eventsOf(a.appId)).map((e) => e.type)).toEqual(['refund.pending']);
  });

  it('a refund opened while its gateway still had a refund call (manual: false) becomes manual at its next trip, not FAILED', async () => {
    const a = await newApp();
    const p = await captured(30_000, a);
    const r = await refunds.create(a, p.id, {});
    // As if opened by an older version whose adapter had a refund call: free to go, never sent.
    await f.c.db.query(
      `UPDATE refunds SET manual = false, created_at = created_at - interval '2 minutes' WHERE id = $1`,
      [r.id],
    );
    expect(await refunds.recheckPending()).toBe(0);
    expect(await row(r.id)).toMatchObject({
      status: 'PENDING',
      manual: true,
      send_attempts: 0,
      failure_reason: null,
    });
    expect((await eventsOf(a.appId)).map((e) => e.type)).toEqual(['refund.pending']);
    expect(await refunds.completeManual(r.id, {})).toMatchObject({ status: 'SUCCEEDED' });
  });

  it('counts as pending against what is refundable: no refunding more than captured, before or after completion', async () => {
    const a = await newApp();
    const p = await captured(100_000, a);
    const first = await refunds.create(a, p.id, { amountMinor: 70_000 });
    await expect(refunds.create(a, p.id, { amountMinor: 30_001 })).rejects.toMatchObject({
      code: 'AMOUNT_OUT_OF_RANGE',
      message: expect.stringContaining('30000 still refundable'),
    });
    // The default is what is left.
    const rest = await refunds.create(a, p.id, {});
    expect(rest).toMatchObject({ amountMinor: 30_000, manual: true, status: 'PENDING' });
    await refunds.completeManual(first.id, {});
    await expect(refunds.create(a, p.id, { amountMinor: 1 })).rejects.toMatchObject({
      code: 'AMOUNT_OUT_OF_RANGE',
    });
    await refunds.completeManual(rest.id, {});
    expect((await payments.get(a, p.id)).amountRefundedMinor).toBe(100_000);
  });

  it('completing it: SUCCEEDED through the gateway-answer path (ledger, refund.succeeded, refunded total), audited with the reference', async () => {
    const a = await newApp();
    const p = await captured(80_000, a);
    const r = await refunds.create(a, p.id, { amountMinor: 30_000 });
    const done = await refunds.completeManual(r.id, {
      gatewayRefundId: 'NGD-REF-123',
      note: 'sent by bank transfer',
    });
    expect(done).toMatchObject({
      id: r.id,
      status: 'SUCCEEDED',
      manual: true,
      gatewayRefundId: 'NGD-REF-123',
      failureReason: null,
    });
    expect((await payments.get(a, p.id)).amountRefundedMinor).toBe(30_000);
    expect(await ledgerOf(r.id)).toEqual(['refund_reserved', 'refund_succeeded']);
    expect(await accountBalances(f.c.db, a.appId)).toMatchObject({
      gateway_clearing: 50_000,
      refunds_pending: 0,
      merchant_payable: -50_000,
    });
    const events = await eventsOf(a.appId);
    expect(events.map((e) => e.type)).toEqual(['refund.pending', 'refund.succeeded']);
    expect(events[1].data).toMatchObject({
      refund_id: r.id,
      payment_id: p.id,
      status: 'succeeded',
      previous_status: 'pending',
      amount_minor: 30_000,
      gateway_refund_id: 'NGD-REF-123',
    });
    const audit = await f.c.db.query(
      `SELECT action, target_type, target_id, after FROM audit_events WHERE target_type = 'refund' AND target_id = $1`,
      [String(r.id)],
    );
    expect(audit.rows).toEqual([
      {
        action: 'refund.completed',
        target_type: 'refund',
        target_id: String(r.id),
        after: {
          amountMinor: 30_000,
          paymentId: p.id,
          gatewayRefundId: 'NGD-REF-123',
          note: 'sent by bank transfer',
        },
      },
    ]);
    // A second completion is 409 and changes nothing.
    await expect(refunds.completeManual(r.id, {})).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringContaining('succeeded refund is decided'),
    });
    expect(await ledgerOf(r.id)).toEqual(['refund_reserved', 'refund_succeeded']);
  });

  it('two completions at once: exactly one succeeds, one ledger posting, one event', async () => {
    const a = await newApp();
    const p = await captured(60_000, a);
    const r = await refunds.create(a, p.id, {});
    // Both start while another session holds the refund's row: they meet at it, whatever the timing.
    const holder = await f.c.db.connect();
    let results: PromiseSettledResult<unknown>[];
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM refunds WHERE id = $1 FOR UPDATE', [r.id]);
      const both = Promise.allSettled([
        refunds.completeManual(r.id, { gatewayRefundId: 'A' }),
        refunds.completeManual(r.id, { gatewayRefundId: 'B' }),
      ]);
      await untilLockWaiters(2);
      await holder.query('COMMIT');
      results = await both;
    } finally {
      holder.release();
    }
    expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
    const [lost] = results.filter((x) => x.status === 'rejected');
    expect((lost as PromiseRejectedResult).reason).toMatchObject({ code: 'INVALID_STATE' });
    expect(await ledgerOf(r.id)).toEqual(['refund_reserved', 'refund_succeeded']);
    expect((await eventsOf(a.appId)).map((e) => e.type)).toEqual([
      'refund.pending',
      'refund.succeeded',
    ]);
    expect((await payments.get(a, p.id)).amountRefundedMinor).toBe(60_000);
  });

  it('only a PENDING manual refund is completed: a gateway refund is 409, an unknown one 404', async () => {
    const a = await newApp();
    const sbx = await f.get(InvoicePaymentsService).createPayment(a, {
      amountMinor: 20_000,
      customerReference: `m-${++seq}`,
    });
    await f.get(TestHelpersService).settlePayment(a, sbx.id, 'succeeded');
    const sandbox = f.get(SandboxGateway);
    sandbox.holdRefunds(true);
    try {
      // PENDING at the gateway: only the gateway's answer decides it.
      const atGateway = await refunds.create(a, sbx.id, {});
      expect(atGateway).toMatchObject({ status: 'PENDING', manual: false });
      await expect(refunds.completeManual(atGateway.id, {})).rejects.toMatchObject({
        code: 'INVALID_STATE',
        message: expect.stringContaining('This refund is not manual'),
      });
      expect(await row(atGateway.id)).toMatchObject({ status: 'PENDING' });
    } finally {
      sandbox.holdRefunds(false);
    }
    await expect(refunds.completeManual(987_654_321, {})).rejects.toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
    });
  });

  it('above the approval threshold: waits for approval first (complete is 409), approved it stays PENDING and manual, then is completed', async () => {
    const a = await newApp(1_000);
    const p = await captured(50_000, a);
    const r = await refunds.create(a, p.id, {});
    expect(r).toMatchObject({ status: 'PENDING', approvalRequired: true, manual: true });
    await expect(refunds.completeManual(r.id, {})).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringContaining('awaits approval'),
    });
    const approved = await refunds.approve(r.id);
    expect(approved).toMatchObject({ status: 'PENDING', manual: true });
    expect(await row(r.id)).toMatchObject({ status: 'PENDING', send_attempts: 0 });
    expect(await refunds.recheckPending()).toBe(0);
    expect(await refunds.completeManual(r.id, {})).toMatchObject({ status: 'SUCCEEDED' });
    // Rejecting one that awaits approval still works (FAILED, reservation released).
    const p2 = await captured(50_000, a);
    const r2 = await refunds.create(a, p2.id, {});
    expect(await refunds.reject(r2.id)).toMatchObject({ status: 'FAILED', manual: true });
    expect(await ledgerOf(r2.id)).toEqual(['refund_reserved', 'refund_released']);
  });

  it('the excess of a capture (decisions 13) on such a gateway: an automatic manual refund, left for an operator', async () => {
    const a = await newApp(1_000);
    const invoice = (
      await f.get(InvoicesService).create(a, {
        customerReference: 'twice',
        currency: 'BDT',
        lineItems: [{ description: 'Item', qty: 1, unitAmountMinor: 100_000 }],
      })
    ).invoice;
    const billing = f.get(InvoicePaymentsService);
    const open = () =>
      billing.createPayment(a, {
        invoiceId: invoice.id,
        customerReference: 'twice',
        amountMinor: 100_000,
        gateway: NO_REFUND,
      });
    const first = await open();
    expect((await f.get(PaymentSimulationService).expireNow(a, first.id)).status).toBe('EXPIRED');
    const second = await open();
    await captureNoRefund(f.c.app, f.c.db, second.id);
    await captureNoRefund(f.c.app, f.c.db, first.id); // the expired checkout was still payable
    const [excess] = (
      await f.c.db.query(`SELECT id FROM refunds WHERE payment_id = $1`, [first.id])
    ).rows as { id: number }[];
    expect(await row(excess.id)).toMatchObject({
      status: 'PENDING',
      manual: true,
      automatic: true,
      approval_required: false,
      submitted_at: null,
    });
    expect(await refunds.recheckPending()).toBe(0);
    expect(await row(excess.id)).toMatchObject({ status: 'PENDING', send_attempts: 0 });
    expect(await refunds.completeManual(excess.id, {})).toMatchObject({ status: 'SUCCEEDED' });
    expect(await payments.get(a, first.id)).toMatchObject({
      excessMinor: 100_000,
      amountRefundedMinor: 100_000,
    });
  });
});
