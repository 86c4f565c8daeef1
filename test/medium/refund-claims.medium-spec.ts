import { InvoicePaymentsService } from '../../src/billing';
import { SandboxGateway } from '../../src/gateways';
import { RefundsService } from '../../src/refunds';
import { REFUND_RECHECK_TICK_MS } from '../../src/refunds/refund-recheck.job';
import { REFUND_CLAIM_MS } from '../../src/refunds/refunds.service';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { createTestContext, insertApp, TestContext } from '../support/test-context';

/**
 * A trip of a refund to its gateway is claimed in the database
 * (`refunds.claimed_until`). Decisions 13 as amended: an interrupted refund
 * resumes within 2 minutes, so the claim is short (REFUND_CLAIM_MS) and the
 * re-check frequent; and a trip that outlived its claim never sends again
 * nor ends the claim of the trip that took the refund over.
 */
describe('refund trips: claims (medium tier)', () => {
  let c: TestContext;
  let scope: { appId: number; mode: 'TEST' };
  let refunds: RefundsService;
  let sandbox: SandboxGateway;
  let seq = 0;
  beforeAll(async () => {
    c = await createTestContext();
    scope = { appId: await insertApp(c.db, 'Refund claims'), mode: 'TEST' };
    refunds = c.app.get(RefundsService);
    sandbox = c.app.get(SandboxGateway);
  });
  afterEach(() => {
    sandbox.slowDown(null);
    jest.restoreAllMocks();
    c.clock.reset();
  });
  afterAll(() => c.close());

  const captured = async () => {
    const billing = c.app.get(InvoicePaymentsService);
    const p = await billing.createPayment(scope, {
      amountMinor: 50_000,
      customerReference: `rc-${++seq}`,
    });
    await c.app.get(TestHelpersService).settlePayment(scope, p.id, 'succeeded');
    return p.id;
  };
  const refundOf = async (paymentId: number) =>
    (
      await c.db.query(
        `SELECT id, status, send_attempts, claimed_until FROM refunds WHERE payment_id = $1`,
        [paymentId],
      )
    ).rows[0] as { id: number; status: string; send_attempts: number; claimed_until: Date | null };
  const untilWaiting = async (n: number) => {
    for (let i = 0; i < 500 && sandbox.callsWaiting < n; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(sandbox.callsWaiting).toBe(n);
  };
  /** A gate the sandbox's calls wait at while it is set (`slowDown`). */
  const gate = () => {
    let open!: () => void;
    const closed = new Promise<void>((r) => (open = r));
    return { closed, open };
  };

  it('the figures keep the promise: an interrupted trip is taken again within 2 minutes', () => {
    expect(REFUND_CLAIM_MS + REFUND_RECHECK_TICK_MS).toBeLessThanOrEqual(120_000);
  });

  it('a refund whose trip stopped during its send (a crash, a lost connection) is resumed by the re-check once its claim ends: not before, and within 2 minutes', async () => {
    c.clock.freeze();
    const t0 = c.clock.nowMs();
    const at = (ms: number) => c.clock.freeze(new Date(t0 + ms));
    const paymentId = await captured();
    // The request's trip claims the refund, marks it sent, and never comes back.
    const stuck = gate();
    sandbox.slowDown(stuck.closed);
    const abandoned = refunds.create(scope, paymentId, { amountMinor: 10_000 });
    await untilWaiting(1);
    sandbox.slowDown(null);
    expect(await refundOf(paymentId)).toMatchObject({ status: 'PENDING', send_attempts: 1 });

    // While its claim runs, nobody asks or sends again.
    at(REFUND_CLAIM_MS - 1_000);
    await refunds.recheckPending();
    expect(await refundOf(paymentId)).toMatchObject({ status: 'PENDING', send_attempts: 1 });

    // A re-check 2 minutes after the interruption (there is one at least every tick) resumes
    // it: asked, found missing, sent.
    at(120_000);
    const resumed = await refunds.recheckPending();
    const after = await refundOf(paymentId);
    if (resumed !== 1) {
      // (A failing run lets the abandoned trip end before the context closes.)
      stuck.open();
      await abandoned;
    }
    expect(resumed).toBe(1);
    expect(after).toMatchObject({ status: 'SUCCEEDED', send_attempts: 2 });

    // The abandoned send arrives after all: the sandbox applies one reference once; nothing changes.
    stuck.open();
    expect((await abandoned).status).toBe('SUCCEEDED');
    expect(await refundOf(paymentId)).toMatchObject({ status: 'SUCCEEDED', send_attempts: 2 });
  });

  it('a trip that outlived its claim neither sends nor ends the claim of the trip that took over', async () => {
    c.clock.freeze();
    const paymentId = await captured();
    // A first send whose answer was lost: the refund is PENDING, sent once, due for a query.
    const lost = gate();
    sandbox.slowDown(lost.closed);
    const first = refunds.create(scope, paymentId, { amountMinor: 10_000 });
    await untilWaiting(1);
    sandbox.slowDown(null);
    const { id } = await refundOf(paymentId);
    // (Its trip is over as far as the database knows.)
    await c.db.query(`UPDATE refunds SET claimed_until = NULL WHERE id = $1`, [id]);

    // Trip A: asks the gateway about it, and its answer is slow.
    const slowQuery = gate();
    sandbox.slowDown(slowQuery.closed);
    const tripA = refunds.recheckPending();
    await untilWaiting(2);
    sandbox.slowDown(null);

    // A's claim ends; trip B takes the refund, asks (nothing there), sends, and its send hangs.
    c.clock.advance(REFUND_CLAIM_MS + 1_000);
    const realRefund = sandbox.refund.bind(sandbox);
    const slowSend = gate();
    const sends = jest.spyOn(sandbox, 'refund').mockImplementationOnce(async (req) => {
      await slowSend.closed;
      return realRefund(req);
    });
    const tripB = refunds.recheckPending();
    for (let i = 0; i < 500 && sends.mock.calls.length < 1; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(sends).toHaveBeenCalledTimes(1);
    const during = await refundOf(paymentId);
    expect(during).toMatchObject({ status: 'PENDING', send_attempts: 2 });

    // A's answer comes: no such refund (B's send has not landed). A must not send it again.
    slowQuery.open();
    await tripA;
    expect(sends).toHaveBeenCalledTimes(1);
    expect(await refundOf(paymentId)).toEqual(during);

    slowSend.open();
    expect(await tripB).toBe(1);
    lost.open();
    await first;
    expect(await refundOf(paymentId)).toMatchObject({ status: 'SUCCEEDED', send_attempts: 2 });
  });
});
