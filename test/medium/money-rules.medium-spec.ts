import { InvoicePaymentsService } from '../../src/billing';
import { dhakaDate } from '../../src/common/clock/dhaka-calendar';
import { InvoicesService } from '../../src/invoices';
import { LedgerService } from '../../src/ledger';
import { PaymentSimulationService, PaymentsService } from '../../src/payments';
import { ReconciliationService, SettlementsService } from '../../src/reconciliation';
import { RefundsService } from '../../src/refunds';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { expectBalancedLedger } from '../support/ledger';
import { createTestContext, insertApp, TestContext } from '../support/test-context';

/**
 * The money rules as services on a real database, with no HTTP in between
 * (the e2e tier proves the same through the API): what an invoice counts and
 * what comes back as excess, refunds that never exceed a capture however
 * they race, ledger postings that balance, and reconciliation classifying
 * each capture and each settlement line once.
 */
describe('money rules (medium tier: services on a real database)', () => {
  let c: TestContext;
  let scope: { appId: number; mode: 'TEST' };
  let billing: InvoicePaymentsService;
  let payments: PaymentsService;
  let refunds: RefundsService;
  let ledger: LedgerService;
  let settle: (id: number) => Promise<unknown>;
  beforeAll(async () => {
    c = await createTestContext();
    scope = { appId: await insertApp(c.db, 'Money rules'), mode: 'TEST' };
    billing = c.app.get(InvoicePaymentsService);
    payments = c.app.get(PaymentsService);
    refunds = c.app.get(RefundsService);
    ledger = c.app.get(LedgerService);
    const helpers = c.app.get(TestHelpersService);
    settle = (id) => helpers.settlePayment(scope, id, 'succeeded');
  });
  afterEach(() => expectBalancedLedger(c.db));
  afterAll(() => c.close());

  const balances = async () =>
    Object.fromEntries(
      (await ledger.balances(scope)).map((b) => [b.account, b.balanceMinor] as const),
    );
  const captured = async (amountMinor: number, ref: string) => {
    const p = await billing.createPayment(scope, { amountMinor, customerReference: ref });
    await settle(p.id);
    return payments.get(scope, p.id);
  };

  it('an invoice counts a capture up to its total; a late capture of an expired checkout is all excess, refunded by itself', async () => {
    const before = await balances();
    const { invoice } = await c.app.get(InvoicesService).create(scope, {
      customerReference: 'mr-1',
      currency: 'BDT',
      lineItems: [{ description: 'Tea', qty: 1, unitAmountMinor: 100000 }],
    });
    const first = await billing.createPayment(scope, {
      amountMinor: 100000,
      invoiceId: invoice.id,
    });
    await c.app.get(PaymentSimulationService).expireNow(scope, first.id);
    const second = await billing.createPayment(scope, {
      amountMinor: 100000,
      invoiceId: invoice.id,
    });
    await settle(second.id);
    await settle(first.id); // the customer paid the expired checkout too
    const late = await payments.get(scope, first.id);
    expect(late).toMatchObject({ status: 'SUCCEEDED', excessMinor: 100000 });
    const { rows } = await c.db.query(
      `SELECT status, amount_paid_minor FROM invoices WHERE id = $1`,
      [invoice.id],
    );
    expect(rows[0]).toEqual({ status: 'PAID', amount_paid_minor: 100000 });
    const opened = await c.db.query(
      `SELECT amount_minor, reason, automatic, approval_required FROM refunds WHERE payment_id = $1`,
      [first.id],
    );
    expect(opened.rows).toEqual([
      { amount_minor: 100000, reason: 'excess_capture', automatic: true, approval_required: false },
    ]);
    expect(await refunds.recheckPending()).toBe(1);
    expect((await payments.get(scope, first.id)).amountRefundedMinor).toBe(100000);
    // Two captures in, one refunded out: the gateway owes 1,000.00 and so does Joma.
    const after = await balances();
    expect(after.gateway_clearing - (before.gateway_clearing ?? 0)).toBe(100000);
    expect(after.merchant_payable - (before.merchant_payable ?? 0)).toBe(-100000);
  });

  it('ten refunds of 30 % raced at once: three go through, seven are refused, never more than the capture', async () => {
    const p = await captured(100000, 'mr-2');
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => refunds.create(scope, p.id, { amountMinor: 30000 })),
    );
    const done = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(done).toHaveLength(3);
    for (const r of refused)
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'AMOUNT_OUT_OF_RANGE' });
    expect((await payments.get(scope, p.id)).amountRefundedMinor).toBe(90000);
    const { rows } = await c.db.query(
      `SELECT count(*)::int AS n, sum(amount_minor)::int AS total FROM refunds WHERE payment_id = $1 AND status = 'SUCCEEDED'`,
      [p.id],
    );
    expect(rows[0]).toEqual({ n: 3, total: 90000 });
  });

  it('reconciliation classifies each capture and each settlement line once, and checks the ledger', async () => {
    const app = { appId: await insertApp(c.db, 'Reconciled'), mode: 'TEST' as const };
    const helpers = c.app.get(TestHelpersService);
    const pay = async (amountMinor: number, ref: string) => {
      const p = await billing.createPayment(app, { amountMinor, customerReference: ref });
      await helpers.settlePayment(app, p.id, 'succeeded');
      return payments.get(app, p.id);
    };
    const p1 = await pay(150000, 'rc-1');
    const p2 = await pay(80000, 'rc-2');
    const now = new Date(c.clock.nowMs()).toISOString();
    const csv = [
      'gateway_txn_id,amount_minor,currency,transaction_time,fee_minor',
      `${p1.gatewayTxnId},150000,BDT,${now},3000`,
      `${p2.gatewayTxnId},79000,BDT,${now},1580`,
      `GHOST-1,5000,BDT,${now},100`,
      `${p1.gatewayTxnId},150000,BDT,${now},3000`,
    ].join('\n');
    const imported = await c.app.get(SettlementsService).importCsv(app, 'sandbox', csv);
    expect(imported).toMatchObject({ lines: 4, imported: 3, duplicates: 1, rejected: [] });
    const run = await c.app
      .get(ReconciliationService)
      .run(dhakaDate(c.clock.nowMs()), { appId: app.appId, mode: 'TEST' });
    expect(run).toMatchObject({
      matched: 1,
      amountMismatch: 1,
      missingInternal: 1,
      missingInSettlement: 0,
      ledgerBalanced: true,
    });
  });
});
