import { AppsService } from '../../src/apps';
import { InvoicePaymentsService } from '../../src/billing';
import { SandboxGateway } from '../../src/gateways';
import { InvoicesService } from '../../src/invoices';
import { PaymentSimulationService, PaymentsService } from '../../src/payments';
import { RefundsService } from '../../src/refunds';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { withWriteRefused } from '../support/faults';
import { accountBalances } from '../support/ledger';
import { serviceFixture } from '../support/service-fixture';
import { insertApp } from '../support/test-context';

type Scope = { appId: number; mode: 'TEST' };

/**
 * The rules of refunds as services on a real database, no HTTP in between
 * (formerly proven in test/e2e/refund-edges and refunds-ledger, which keep
 * the HTTP contract: statuses, envelopes, Idempotency-Key replays, 403s,
 * races through the API): what is refundable and what is refused, the
 * excess of a capture refunded by itself (decisions 13), approval that is
 * cumulative per payment (decisions 7), approve and reject, and the re-check
 * that finishes a refund whose request stopped between its steps. Every
 * refund's ledger postings balance (checked after each test).
 */
describe('refunds (medium tier: services on a real database)', () => {
  const f = serviceFixture({ balancedLedger: true, appName: 'Refunds' });
  let seq = 0;
  let refunds: RefundsService;
  let payments: PaymentsService;
  beforeAll(() => {
    refunds = f.get(RefundsService);
    payments = f.get(PaymentsService);
  });
  // Rows are stamped by PostgreSQL's clock (created_at) and read against the app's: each test starts with them agreeing.
  afterEach(() => f.c.clock.reset());

  /** A new app of its own, with a refund approval threshold when given. */
  async function newApp(threshold?: number): Promise<Scope> {
    const appId = await insertApp(f.c.db, `Refunds ${++seq}`);
    if (threshold !== undefined)
      await f.get(AppsService).updateSettings(appId, { refundApprovalThresholdMinor: threshold });
    return { appId, mode: 'TEST' };
  }
  const createPayment = (
    scope: Scope,
    input: { amountMinor: number; invoiceId?: number; customerReference?: string },
  ) => f.get(InvoicePaymentsService).createPayment(scope, input);
  const settle = async (scope: Scope, paymentId: number) =>
    expect(
      (await f.get(TestHelpersService).settlePayment(scope, paymentId, 'succeeded')).status,
    ).toBe('SUCCEEDED');
  /** A captured payment of `amountMinor`. */
  async function captured(amountMinor: number, scope: Scope = f.scope) {
    const p = await createPayment(scope, { amountMinor, customerReference: `r-${++seq}` });
    await settle(scope, p.id);
    return p;
  }
  const newInvoice = async (scope: Scope, customerReference: string) =>
    (
      await f.get(InvoicesService).create(scope, {
        customerReference,
        currency: 'BDT',
        lineItems: [{ description: 'Item', qty: 1, unitAmountMinor: 100000 }],
      })
    ).invoice;
  const refundRows = async (paymentId: number) =>
    (
      await f.c.db.query(
        'SELECT id, status, amount_minor, reason, automatic, approval_required, submitted_at FROM refunds WHERE payment_id = $1 ORDER BY id',
        [paymentId],
      )
    ).rows as {
      id: number;
      status: string;
      amount_minor: number;
      reason: string | null;
      automatic: boolean;
      approval_required: boolean;
      submitted_at: Date | null;
    }[];
  /** The app's events (the outbox), oldest first. */
  const eventsOf = async (appId: number, typePrefix: string) =>
    (
      await f.c.db.query(
        'SELECT type, data FROM events WHERE app_id = $1 AND type LIKE $2 ORDER BY id',
        [appId, `${typePrefix}%`],
      )
    ).rows as { type: string; data: Record<string, any> }[];
  const recheck = () => refunds.recheckPending();
  const withFault = <T>(table: string, column: string, call: () => PromiseLike<T>) =>
    withWriteRefused(f.c.db, table, column, call);

  describe('what a refund takes back', () => {
    it('refunds everything by default: SUCCEEDED at once (sandbox), its events, the payment’s refunded total, the ledger back to zero', async () => {
      const scope = f.scope;
      const before = await accountBalances(f.c.db, scope.appId);
      const p = await captured(100000);
      const r = await refunds.create(scope, p.id, { reason: 'customer asked' });
      expect(r).toMatchObject({
        paymentId: p.id,
        invoiceId: null,
        amountMinor: 100000,
        currency: 'BDT',
        status: 'SUCCEEDED',
        reason: 'customer asked',
        approvalRequired: false,
        gatewayRefundId: `sbxr_rfd_${r.id}`,
        failureReason: null,
        mode: 'TEST',
      });
      expect((await payments.get(scope, p.id)).amountRefundedMinor).toBe(100000);
      const events = (await eventsOf(scope.appId, 'refund.')).filter(
        (e) => e.data.refund_id === r.id,
      );
      expect(events.map((e) => e.type)).toEqual(['refund.pending', 'refund.succeeded']);
      expect(events[1].data).toMatchObject({
        refund_id: r.id,
        payment_id: p.id,
        invoice_id: null,
        status: 'succeeded',
        previous_status: 'pending',
        amount_minor: 100000,
        currency: 'BDT',
        customer_reference: `r-${seq}`,
      });
      // Captured and fully refunded: clearing and payable are back where they were.
      expect(await accountBalances(f.c.db, scope.appId)).toEqual({
        ...before,
        gateway_clearing: before.gateway_clearing ?? 0,
        merchant_payable: before.merchant_payable ?? 0,
        refunds_pending: 0,
      });
      expect((await refunds.get(scope, r.id)).status).toBe('SUCCEEDED');
      expect((await refunds.ofPayment(scope, p.id)).map((x) => x.id)).toEqual([r.id]);
    });

    it('partial refunds add up to the capture and no further; nothing left is refused; only a SUCCEEDED payment, only in its own app and mode', async () => {
      const scope = f.scope;
      const p = await captured(100000);
      expect((await refunds.create(scope, p.id, { amountMinor: 30000 })).status).toBe('SUCCEEDED');
      await expect(refunds.create(scope, p.id, { amountMinor: 70001 })).rejects.toMatchObject({
        code: 'AMOUNT_OUT_OF_RANGE',
        details: [{ field: 'amountMinor', message: 'at most 70000' }],
      });
      expect((await refunds.create(scope, p.id, { amountMinor: 70000 })).status).toBe('SUCCEEDED');
      await expect(refunds.create(scope, p.id, {})).rejects.toMatchObject({
        code: 'AMOUNT_OUT_OF_RANGE',
        message: expect.stringContaining('nothing left to refund'),
      });
      expect((await payments.get(scope, p.id)).amountRefundedMinor).toBe(100000);
      const { rows } = await f.c.db.query(
        `SELECT sum(amount_minor)::int AS total, count(*)::int AS n FROM refunds WHERE payment_id = $1`,
        [p.id],
      );
      expect(rows[0]).toEqual({ total: 100000, n: 2 });

      const pending = await createPayment(scope, { amountMinor: 5000, customerReference: 'x' });
      await expect(refunds.create(scope, pending.id, {})).rejects.toMatchObject({
        code: 'INVALID_STATE',
      });
      const other = await newApp();
      for (const elsewhere of [{ appId: scope.appId, mode: 'LIVE' as const }, other])
        await expect(refunds.create(elsewhere, p.id, {})).rejects.toMatchObject({
          code: 'RESOURCE_NOT_FOUND',
        });
      expect(await refundRows(pending.id)).toEqual([]);
    });

    it('a gateway that answers "processing" leaves the refund PENDING until a later status query settles it', async () => {
      const sandbox = f.get(SandboxGateway);
      const p = await captured(40000);
      sandbox.holdRefunds(true);
      try {
        const r = await refunds.create(f.scope, p.id, {});
        expect(r).toMatchObject({ status: 'PENDING', gatewayRefundId: `sbxr_rfd_${r.id}` });
        f.c.clock.advance(61_000);
        expect(await recheck()).toBe(0);
        expect((await refunds.get(f.scope, r.id)).status).toBe('PENDING');
        sandbox.holdRefunds(false);
        f.c.clock.advance(61_000);
        expect(await recheck()).toBe(1);
        expect((await refunds.get(f.scope, r.id)).status).toBe('SUCCEEDED');
        expect((await payments.get(f.scope, p.id)).amountRefundedMinor).toBe(40000);
      } finally {
        sandbox.holdRefunds(false);
      }
    });
  });

  describe('the excess of a capture is refunded by itself (decisions 13)', () => {
    it('a second capture of a paid invoice: SUCCEEDED, all of it excess, refunded with reason excess_capture and no approval', async () => {
      const a = await newApp(1000);
      const invoice = await newInvoice(a, 'twice');
      const first = await createPayment(a, {
        invoiceId: invoice.id,
        customerReference: 'twice',
        amountMinor: 100000,
      });
      expect((await f.get(PaymentSimulationService).expireNow(a, first.id)).status).toBe('EXPIRED');
      const second = await createPayment(a, {
        invoiceId: invoice.id,
        customerReference: 'twice',
        amountMinor: 100000,
      });
      await settle(a, second.id);
      await settle(a, first.id); // the expired checkout was still payable

      // In the capture's transaction: the refund exists, PENDING, with its event.
      const [opened] = await refundRows(first.id);
      expect(opened).toMatchObject({
        status: 'PENDING',
        amount_minor: 100000,
        reason: 'excess_capture',
        automatic: true,
        approval_required: false,
        submitted_at: null,
      });
      expect(await refundRows(second.id)).toEqual([]);
      // The re-check (every minute) sends it at once, whatever the threshold.
      await recheck();
      const [sent] = await refundRows(first.id);
      expect(sent.status).toBe('SUCCEEDED');
      expect(await payments.get(a, first.id)).toMatchObject({
        status: 'SUCCEEDED',
        excessMinor: 100000,
        amountRefundedMinor: 100000,
      });
      const events = (await eventsOf(a.appId, 'refund.')).map((e) => [e.type, e.data.reason]);
      expect(events).toEqual([
        ['refund.pending', 'excess_capture'],
        ['refund.succeeded', 'excess_capture'],
      ]);
      // The invoice counts its total once; the merchant is owed one capture.
      expect(await accountBalances(f.c.db, a.appId)).toMatchObject({
        gateway_clearing: 100000,
        merchant_payable: -100000,
        refunds_pending: 0,
      });
      // Nothing is left to refund on the excess payment.
      await expect(refunds.create(a, first.id, {})).rejects.toMatchObject({
        code: 'AMOUNT_OUT_OF_RANGE',
      });
      // Sent once: another re-check changes nothing.
      await recheck();
      expect((await refundRows(first.id)).length).toBe(1);
    });

    it('a capture larger than what is due: only the part the invoice did not need is refunded', async () => {
      const scope = f.scope;
      const invoice = await newInvoice(scope, 'part');
      const p = await createPayment(scope, {
        invoiceId: invoice.id,
        customerReference: 'part',
        amountMinor: 60000,
      });
      const q = await createPayment(scope, {
        invoiceId: invoice.id,
        customerReference: 'part',
        amountMinor: 40000,
      });
      expect((await f.get(PaymentSimulationService).expireNow(scope, q.id)).status).toBe('EXPIRED');
      const r = await createPayment(scope, {
        invoiceId: invoice.id,
        customerReference: 'part',
        amountMinor: 40000,
      });
      await settle(scope, p.id);
      await settle(scope, r.id);
      await settle(scope, q.id);
      await recheck();
      expect(await refundRows(q.id)).toMatchObject([
        { status: 'SUCCEEDED', amount_minor: 40000, reason: 'excess_capture' },
      ]);
      expect(await refundRows(p.id)).toEqual([]);
      expect(await refundRows(r.id)).toEqual([]);
    });
  });

  describe('approval is cumulative per payment (decisions 7)', () => {
    it('five refunds of 100,000 against a threshold of 100,000: the second and later wait for approval; a rejected one no longer counts', async () => {
      const a = await newApp(100000);
      const p = await captured(500000, a);
      const answers = [];
      for (let i = 0; i < 5; i++)
        answers.push(await refunds.create(a, p.id, { amountMinor: 100000 }));
      expect(answers.map((r) => [r.status, r.approvalRequired])).toEqual([
        ['SUCCEEDED', false],
        ['PENDING', true],
        ['PENDING', true],
        ['PENDING', true],
        ['PENDING', true],
      ]);
      // A rejected one no longer counts: the next small one goes through if the sum allows it.
      const b = await newApp(100000);
      const q = await captured(200000, b);
      const one = await refunds.create(b, q.id, { amountMinor: 60000 });
      const two = await refunds.create(b, q.id, { amountMinor: 60000 });
      expect([one.approvalRequired, two.approvalRequired]).toEqual([false, true]);
      expect((await refunds.reject(two.id)).status).toBe('FAILED');
      const three = await refunds.create(b, q.id, { amountMinor: 40000 });
      expect(three).toMatchObject({ status: 'SUCCEEDED', approvalRequired: false });
    });

    it('parts raced at once cannot dodge it either', async () => {
      const a = await newApp(100000);
      const p = await captured(500000, a);
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => refunds.create(a, p.id, { amountMinor: 100000 })),
      );
      const sent = answers.filter((r) => !r.approvalRequired);
      expect(sent.length).toBe(1);
      expect(sent[0].status).toBe('SUCCEEDED');
      expect(answers.filter((r) => r.approvalRequired).map((r) => r.status)).toEqual([
        'PENDING',
        'PENDING',
        'PENDING',
        'PENDING',
      ]);
      expect((await refundRows(p.id)).length).toBe(5);
    });

    it('above the threshold a refund waits for approval: approving sends it (once); rejecting fails it and releases the reservation', async () => {
      const a = await newApp(10000);
      const p = await captured(50000, a);
      const big = await refunds.create(a, p.id, { amountMinor: 20000 });
      expect(big).toMatchObject({
        status: 'PENDING',
        approvalRequired: true,
        gatewayRefundId: null,
      });
      expect(await accountBalances(f.c.db, a.appId)).toMatchObject({ refunds_pending: -20000 });
      const queue = await refunds.adminList({}, { status: 'PENDING', applicationId: a.appId });
      expect(queue.items.map((r) => r.id)).toEqual([big.id]);

      const approved = await refunds.approve(big.id);
      expect(approved.status).toBe('SUCCEEDED');
      await expect(refunds.approve(big.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });

      const second = await refunds.create(a, p.id, { amountMinor: 15000 });
      const rejected = await refunds.reject(second.id);
      expect(rejected).toMatchObject({
        status: 'FAILED',
        failureReason: 'Rejected by an operator',
      });
      const types = (await eventsOf(a.appId, 'refund.')).map((e) => [e.type, e.data.refund_id]);
      expect(types).toEqual([
        ['refund.pending', big.id],
        ['refund.succeeded', big.id],
        ['refund.pending', second.id],
        ['refund.failed', second.id],
      ]);
      // Captured 50,000, refunded 20,000; the rejected 15,000 is released back to the merchant.
      expect(await accountBalances(f.c.db, a.appId)).toEqual({
        gateway_clearing: 30000,
        merchant_payable: -30000,
        refunds_pending: 0,
      });
      // The rejected amount is refundable again (and, past the threshold, waits for approval).
      expect(await refunds.create(a, p.id, { amountMinor: 30000 })).toMatchObject({
        amountMinor: 30000,
        status: 'PENDING',
        approvalRequired: true,
      });
    });
  });

  describe('a refund whose request stopped between its steps is finished by the re-check', () => {
    it('opened and never sent (nobody retries): the re-check sends it; it never stays PENDING', async () => {
      const p = await captured(100000);
      await expect(
        withFault('refunds', 'claimed_until', () =>
          refunds.create(f.scope, p.id, { amountMinor: 25000 }),
        ),
      ).rejects.toThrow(/injected fault/);
      const [stuck] = await refundRows(p.id);
      expect(stuck).toMatchObject({ status: 'PENDING', submitted_at: null });
      // Not at once: the request that opened it may still be sending it.
      await recheck();
      expect((await refundRows(p.id))[0].status).toBe('PENDING');
      f.c.clock.advance(61_000);
      await recheck();
      expect((await refundRows(p.id))[0].status).toBe('SUCCEEDED');
      const events = (await eventsOf(f.scope.appId, 'refund.')).filter(
        (e) => e.data.refund_id === stuck.id,
      );
      expect(events.map((e) => e.type)).toEqual(['refund.pending', 'refund.succeeded']);
    });

    it('approved and never sent: the re-check sends it; approving again is refused, nothing is sent twice', async () => {
      const a = await newApp(10000);
      const p = await captured(50000, a);
      const opened = await refunds.create(a, p.id, { amountMinor: 20000 });
      expect(opened).toMatchObject({ status: 'PENDING', approvalRequired: true });
      await expect(
        withFault('refunds', 'claimed_until', () => refunds.approve(opened.id)),
      ).rejects.toThrow(/injected fault/);
      await expect(refunds.approve(opened.id)).rejects.toMatchObject({
        code: 'INVALID_STATE',
        message: 'This refund was already approved',
      });
      f.c.clock.advance(61_000);
      await recheck();
      expect(await refundRows(p.id)).toMatchObject([{ id: opened.id, status: 'SUCCEEDED' }]);
      expect((await payments.get(a, p.id)).amountRefundedMinor).toBe(20000);
    });

    it('a refund awaiting approval is never sent by the re-check', async () => {
      const a = await newApp(10000);
      const p = await captured(50000, a);
      const opened = await refunds.create(a, p.id, { amountMinor: 20000 });
      f.c.clock.advance(3_600_000);
      await recheck();
      expect(await refundRows(p.id)).toMatchObject([
        { id: opened.id, status: 'PENDING', submitted_at: null },
      ]);
    });
  });
});
