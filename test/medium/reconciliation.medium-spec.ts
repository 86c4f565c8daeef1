import { InvoicePaymentsService } from '../../src/billing';
import type { TenantScope } from '../../src/database/tenant';
import { SandboxGateway } from '../../src/gateways';
import { LedgerService } from '../../src/ledger';
import { ReconciliationService, SettlementsService } from '../../src/reconciliation';
import type { ItemRow, RunRow } from '../../src/reconciliation/reconciliation.repository';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { accountBalances } from '../support/ledger';
import { serviceFixture } from '../support/service-fixture';
import { insertApp } from '../support/test-context';

/** 10:00 in Dhaka on 10 March 2027. */
const MORNING = '2027-03-10T04:00:00Z';
const PERIOD = '2027-03-10';
const MAX_LINE = 100_000_000_000;
const HEADER = 'gateway_txn_id,amount_minor,currency,transaction_time,fee_minor';

/**
 * Settlement imports and reconciliation runs as services on a real database
 * (issue 57): which lines an import takes, what it posts to the ledger, and
 * which class each capture and settlement line of a Dhaka day falls into.
 * The HTTP contract of the same routes (statuses, envelopes, body size,
 * cursors, permissions, audit over HTTP) stays in
 * test/e2e/reconciliation.e2e-spec.ts and reconciliation-edges.e2e-spec.ts.
 */
describe('settlement import and reconciliation (medium tier)', () => {
  const f = serviceFixture({ balancedLedger: true, appName: 'Reconciliation' });
  let settlements: SettlementsService;
  let reconciliation: ReconciliationService;
  beforeAll(() => {
    settlements = f.get(SettlementsService);
    reconciliation = f.get(ReconciliationService);
    at(MORNING);
  });

  /** Moves the test clock to the instant `iso`. */
  const at = (iso: string) => f.c.clock.advance(Date.parse(iso) - f.c.clock.nowMs());
  const newApp = async (name: string): Promise<TenantScope> => ({
    appId: await insertApp(f.c.db, name),
    mode: 'TEST',
  });
  /** A sandbox payment the customer paid (the same confirmation path as a gateway's return). */
  async function captured(scope: TenantScope, amountMinor: number) {
    const p = await f.get(InvoicePaymentsService).createPayment(scope, {
      amountMinor,
      customerReference: 'recon',
    });
    const s = await f.get(TestHelpersService).settlePayment(scope, p.id, 'succeeded');
    expect(s.status).toBe('SUCCEEDED');
    return {
      id: Number(s.id),
      gatewayTxnId: s.gatewayTxnId!,
      succeededAt: new Date(f.c.clock.nowMs()).toISOString(),
    };
  }
  const lines = (prefix: string, n: number, amount: number | string, fee = '') =>
    Array.from({ length: n }, (_, i) => `${prefix}-${i},${amount},BDT,2027-03-10T05:00:00Z,${fee}`);
  const counts = (r: RunRow) => [
    r.matched,
    r.amountMismatch,
    r.missingInternal,
    r.missingInSettlement,
    r.deferred,
  ];
  /** A run's items as the API shows them (ids as numbers). */
  const itemsOf = async (runId: number, cls?: ItemRow['class']) => {
    const page = await reconciliation.items(runId, 0, 100, cls);
    return {
      pagination: page.pagination,
      items: page.items.map((i) => ({
        class: i.class,
        paymentId: i.paymentId === null ? null : Number(i.paymentId),
        gateway: i.gateway,
        gatewayTxnId: i.gatewayTxnId,
        internalAmountMinor: i.internalAmountMinor === null ? null : Number(i.internalAmountMinor),
        settlementAmountMinor:
          i.settlementAmountMinor === null ? null : Number(i.settlementAmountMinor),
        appId: Number(i.appId),
        mode: i.mode,
      })),
    };
  };
  const stored = async (scope: TenantScope) =>
    (
      await f.c.db.query(
        `SELECT (SELECT count(*) FROM settlement_imports WHERE app_id = $1)::int AS imports,
                (SELECT count(*) FROM settlement_lines WHERE app_id = $1)::int AS lines`,
        [scope.appId],
      )
    ).rows[0] as { imports: number; lines: number };

  it('an import takes good lines, skips duplicates, reports bad lines by number, and posts settlements to the ledger', async () => {
    const scope = await newApp('Imports');
    const p = await captured(scope, 150000);
    const csv = [
      'gateway_txn_id,amount_minor,currency,transaction_time,fee_minor,settled_on',
      `${p.gatewayTxnId},150000,BDT,${p.succeededAt},3000,2027-03-11`,
      'BROKEN,abc,BDT,2027-03-10T05:00:00Z,,',
      `OTHER-1,5000,BDT,2027-03-10T05:00:00Z,,`,
    ].join('\n');
    const first = await settlements.importCsv(scope, 'sandbox', csv);
    expect({ ...first, importId: Number(first.importId) }).toEqual({
      importId: expect.any(Number),
      lines: 3,
      imported: 2,
      duplicates: 0,
      rejected: [
        {
          line: 3,
          reason: 'amount_minor must be an integer of minor units from 1 to 100000000000',
        },
      ],
    });
    const again = await settlements.importCsv(scope, 'sandbox', csv);
    expect(again).toMatchObject({ lines: 3, imported: 0, duplicates: 2 });
    // Captured 150,000; settled 155,000 (one line has no capture) of which 3,000 in fees.
    expect(await accountBalances(f.c.db, scope.appId)).toEqual({
      gateway_clearing: 150000 - 155000,
      merchant_payable: -150000,
      bank: 152000,
      gateway_fees: 3000,
    });
    const bad = await settlements.importCsv(scope, 'sandbox', 'txn,amount\n1,2');
    expect(bad.rejected).toEqual([{ line: 1, reason: expect.stringContaining('header lacks') }]);
    expect(bad).toMatchObject({ imported: 0, duplicates: 0 });
  });

  it('issue 56: a header row naming a column twice is refused naming the column (field csv); nothing is stored', async () => {
    const scope = await newApp('Repeated columns');
    for (const head of [
      'gateway_txn_id,amount_minor,currency,transaction_time,amount_minor',
      'gateway_txn_id,Amount_Minor,currency,transaction_time, amount_minor ',
    ]) {
      await expect(
        settlements.importCsv(
          scope,
          'sandbox',
          [head, 'DUP-1,5000,BDT,2027-03-11T05:00:00Z,900000'].join('\n'),
        ),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [
          { field: 'csv', message: expect.stringContaining('names amount_minor more than once') },
        ],
      });
    }
    expect(await stored(scope)).toEqual({ imports: 0, lines: 0 });
  });

  it('issue 56: a LIVE import of sandbox lines is refused naming the lines (field gateway); nothing is stored; TEST and real gateways still import', async () => {
    const test = await newApp('Live sandbox');
    const live: TenantScope = { appId: test.appId, mode: 'LIVE' };
    const csv = [HEADER, ...lines('SBX-LIVE', 2, 5000), 'BAD,-1,BDT,2027-03-11T05:00:00Z,'].join(
      '\n',
    );
    await expect(settlements.importCsv(live, 'sandbox', csv)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        {
          field: 'gateway',
          message: expect.stringContaining('cannot enter a LIVE import (lines 2, 3, 4)'),
        },
      ],
    });
    expect(await stored(test)).toEqual({ imports: 0, lines: 0 });
    expect(await settlements.importCsv(live, 'sslcommerz', csv)).toMatchObject({ imported: 2 });
    expect(await settlements.importCsv(test, 'sandbox', csv)).toMatchObject({ imported: 2 });
    expect(await stored(test)).toEqual({ imports: 2, lines: 4 });
  });

  it('amount_minor is 1 to 100,000,000,000 and fee_minor 0 to the amount: lines outside are rejected by number, the ledger and runs stay sound', async () => {
    const scope = await newApp('Bounds');
    const huge = await settlements.importCsv(
      scope,
      'sandbox',
      [
        HEADER,
        ...lines('BIG', 9, '999999999999999'),
        `OVER-1,${MAX_LINE + 1},BDT,2027-03-10T05:00:00Z,`,
        `FEE-1,100,BDT,2027-03-10T05:00:00Z,101`,
        `ZERO-1,0,BDT,2027-03-10T05:00:00Z,`,
      ].join('\n'),
    );
    expect(huge).toMatchObject({ lines: 12, imported: 0, duplicates: 0 });
    expect(huge.rejected.map((r) => r.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(huge.rejected[0].reason).toBe(
      'amount_minor must be an integer of minor units from 1 to 100000000000',
    );
    expect(await stored(scope)).toEqual({ imports: 1, lines: 0 });
    // At the limit, twice nine lines: every sum stays exact.
    for (const batch of ['MAX-A', 'MAX-B']) {
      const res = await settlements.importCsv(
        scope,
        'sandbox',
        [HEADER, ...lines(batch, 9, MAX_LINE, String(MAX_LINE))].join('\n'),
      );
      expect(res).toMatchObject({ lines: 9, imported: 9, rejected: [] });
    }
    const balances = await f.get(LedgerService).balances({ appId: scope.appId, mode: 'TEST' });
    const fees = balances.find((r) => r.account === 'gateway_fees')!;
    expect(fees.debitMinor).toBe(18 * MAX_LINE);
    const run = await reconciliation.run(PERIOD, scope);
    expect(run).toMatchObject({ missingInternal: 18, ledgerBalanced: true, status: 'COMPLETED' });
  });

  it("a run's period is a date not in the future; an unknown app is not found", async () => {
    await expect(reconciliation.run('2027-3-1', {})).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'period', message: 'period must be a date (YYYY-MM-DD)' }],
    });
    await expect(reconciliation.run('2099-01-01', {})).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'period', message: 'period must not be in the future' }],
    });
    await expect(reconciliation.run(PERIOD, { appId: 987654321 })).rejects.toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
    });
    const { rows } = await f.c.db.query(
      `SELECT count(*)::int AS n FROM reconciliation_runs WHERE app_id = 987654321`,
    );
    expect(rows[0].n).toBe(0);
  });

  it("fetch pulls the sandbox gateway's own settlement report: its captures match without a CSV", async () => {
    const scope = await newApp('Fetched');
    await captured(scope, 11000);
    await captured(scope, 12000);
    const run = await reconciliation.run(PERIOD, scope, { fetch: true });
    expect(run).toMatchObject({
      matched: 2,
      amountMismatch: 0,
      missingInternal: 0,
      missingInSettlement: 0,
      deferred: 0,
      ledgerBalanced: true,
    });
  });

  it('fetch: a capture the gateway reports but Joma never recorded is missingInternal, not dropped', async () => {
    const scope = await newApp('Unrecorded');
    const p = await f.get(InvoicePaymentsService).createPayment(scope, {
      amountMinor: 7700,
      customerReference: 'unrecorded',
    });
    // The customer pays on the gateway's page; the return never reaches Joma.
    const done = await f.get(SandboxGateway).complete(p.gatewaySessionId!, 'pay');
    expect(done).toMatchObject({ refused: false, session: { status: 'CAPTURED' } });
    const run = await reconciliation.run(PERIOD, scope, { fetch: true });
    expect(run).toMatchObject({ matched: 0, missingInternal: 1, missingInSettlement: 0 });
    expect((await itemsOf(run.id)).items).toEqual([
      expect.objectContaining({
        class: 'missingInternal',
        paymentId: null,
        gatewayTxnId: done!.session.txnId,
        settlementAmountMinor: 7700,
      }),
    ]);
  });

  it('the nightly run of the previous Dhaka day is claimed by one replica only', async () => {
    const [x, y] = await Promise.all([reconciliation.runNightly(), reconciliation.runNightly()]);
    const runs = [x, y].filter((r) => r !== null);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      period: '2027-03-09',
      trigger: 'nightly',
      appId: null,
      mode: null,
      status: 'COMPLETED',
    });
    expect(await reconciliation.runNightly()).toBeNull();
    const { rows } = await f.c.db.query(
      `SELECT count(*)::int AS n FROM reconciliation_runs WHERE period = '2027-03-09' AND trigger = 'nightly'`,
    );
    expect(rows[0].n).toBe(1);
  });

  it('a run classifies each capture and line of the Dhaka day once, into the five classes; repeating it makes a new run with the same counts; another app and the other mode see none of it', async () => {
    const scope = await newApp('Classes');
    const other = await newApp('Other');
    const matched = await captured(scope, 10000);
    const mismatched = await captured(scope, 20000);
    const unsettled = await captured(scope, 30000);
    // 22:30 in Dhaka: inside the last two hours of the day.
    at('2027-03-10T16:30:00Z');
    const late = await captured(scope, 40000);
    const csv = [
      'gateway_txn_id,amount_minor,currency,transaction_time',
      `${matched.gatewayTxnId},10000,BDT,${matched.succeededAt}`,
      `${mismatched.gatewayTxnId},19000,BDT,${mismatched.succeededAt}`,
      `GHOST-1,7000,BDT,2027-03-10T05:00:00+06:00`,
      // the day before: not this period
      `GHOST-0,7000,BDT,2027-03-09T23:00:00+06:00`,
    ].join('\n');
    expect((await settlements.importCsv(scope, 'sandbox', csv)).imported).toBe(4);

    const run = await reconciliation.run(PERIOD, scope);
    expect(run).toMatchObject({
      appId: scope.appId,
      mode: 'TEST',
      period: PERIOD,
      matched: 1,
      amountMismatch: 1,
      missingInternal: 1,
      missingInSettlement: 1,
      deferred: 1,
      ledgerBalanced: true,
      status: 'COMPLETED',
      failureReason: null,
      trigger: 'api',
    });
    const { items } = await itemsOf(run.id);
    expect(items).toHaveLength(4);
    const byClass = Object.fromEntries(items.map((i) => [i.class, i]));
    expect(byClass.amountMismatch).toEqual({
      class: 'amountMismatch',
      paymentId: mismatched.id,
      gateway: 'sandbox',
      gatewayTxnId: mismatched.gatewayTxnId,
      internalAmountMinor: 20000,
      settlementAmountMinor: 19000,
      appId: scope.appId,
      mode: 'TEST',
    });
    expect(byClass.missingInternal).toMatchObject({
      paymentId: null,
      gatewayTxnId: 'GHOST-1',
      internalAmountMinor: null,
      settlementAmountMinor: 7000,
    });
    expect(byClass.missingInSettlement).toMatchObject({
      paymentId: unsettled.id,
      internalAmountMinor: 30000,
      settlementAmountMinor: null,
    });
    expect(byClass.deferred).toMatchObject({
      paymentId: late.id,
      internalAmountMinor: 40000,
      settlementAmountMinor: null,
    });
    const onlyDeferred = await itemsOf(run.id, 'deferred');
    expect(onlyDeferred.items.map((i) => i.paymentId)).toEqual([late.id]);
    expect(onlyDeferred.pagination).toMatchObject({ totalElements: 1 });

    const again = await reconciliation.run(PERIOD, scope);
    expect(again.id).not.toBe(run.id);
    expect(counts(again)).toEqual(counts(run));
    const listed = await reconciliation.list(0, 100, PERIOD);
    expect(listed.items.map((r) => r.id)).toEqual(expect.arrayContaining([run.id, again.id]));
    expect((await reconciliation.get(run.id)).id).toBe(run.id);

    // Isolation: another app and the other mode see none of it.
    for (const filter of [{ appId: other.appId }, { appId: scope.appId, mode: 'LIVE' as const }])
      expect(counts(await reconciliation.run(PERIOD, filter))).toEqual([0, 0, 0, 0, 0]);
  });
});
