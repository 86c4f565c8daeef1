import { InvoicePaymentsService } from '../../src/billing';
import { AppError } from '../../src/common/errors/app-error';
import { figuresOutOfRange } from '../../src/common/money/exact-sum';
import { DailyCollectionsService, LedgerService } from '../../src/ledger';
import { PaymentSimulationService, PaymentsService } from '../../src/payments';
import {
  NightlyReconciliationJob,
  ReconciliationService,
  SettlementsService,
} from '../../src/reconciliation';
import { ReconciliationRepository } from '../../src/reconciliation/reconciliation.repository';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { serviceFixture } from '../support/service-fixture';
import { insertApp } from '../support/test-context';

type Scope = { appId: number; mode: 'TEST' };

/** 10:00 in Dhaka on 2 April 2027 (the test clock only moves forward). */
const MORNING = Date.parse('2027-04-02T04:00:00Z');
const BOUND = 1_000_000_000_000_000; // 10^15
const HEADER = 'gateway_txn_id,amount_minor,currency,transaction_time,fee_minor';

/** The error a promise rejects with (it must reject). */
async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => {
      throw new Error('expected a refusal, got an answer');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

/**
 * The ledger's rules as services on a real database, no HTTP in between
 * (formerly proven in test/e2e/refunds-ledger and ledger-sums, which keep
 * the HTTP contract of the balances and the settlement import): what is
 * posted when, the books enforced by PostgreSQL itself, the balances per
 * account, and sums past 2^53 (issue 56 (4), decisions 14 "sums"): exact, a
 * figure that does not fit refused AMOUNT_OUT_OF_RANGE naming the app, for
 * that request alone; the nightly run recorded instead of crashing; an
 * import past 10^15 settled per app and mode refused whole.
 */
describe('ledger postings and sums (medium tier: services on a real database)', () => {
  const f = serviceFixture({ balancedLedger: true, appName: 'Ledger' });
  let seq = 0;
  let ledger: LedgerService;
  beforeAll(() => {
    ledger = f.get(LedgerService);
  });

  const newApp = async (): Promise<Scope> => ({
    appId: await insertApp(f.c.db, `Ledger ${++seq}`),
    mode: 'TEST',
  });
  const createPayment = (scope: Scope, amountMinor: number, customerReference = `l-${++seq}`) =>
    f.get(InvoicePaymentsService).createPayment(scope, { amountMinor, customerReference });
  /** Captures a payment through the sandbox; its gateway transaction id. */
  const settle = async (scope: Scope, paymentId: number) => {
    const p = await f.get(TestHelpersService).settlePayment(scope, paymentId, 'succeeded');
    expect(p.status).toBe('SUCCEEDED');
    return p.gatewayTxnId!;
  };
  const captured = async (amountMinor: number, scope: Scope = f.scope) => {
    const p = await createPayment(scope, amountMinor);
    await settle(scope, p.id);
    return p;
  };

  describe('postings', () => {
    it('a late capture of an expired payment is posted when it is revived, not before', async () => {
      const p = await createPayment(f.scope, 12345, 'late');
      expect((await f.get(PaymentSimulationService).expireNow(f.scope, p.id)).status).toBe(
        'EXPIRED',
      );
      const posted = async () =>
        (
          await f.c.db.query(
            `SELECT count(*)::int AS n FROM ledger_transactions WHERE kind = 'capture' AND source_id = $1`,
            [String(p.id)],
          )
        ).rows[0].n;
      expect(await posted()).toBe(0);
      await settle(f.scope, p.id);
      expect(await posted()).toBe(1);
      expect((await f.get(PaymentsService).get(f.scope, p.id)).status).toBe('SUCCEEDED');
    });

    it('ledger rows are append-only and every transaction must balance, enforced by the database', async () => {
      await captured(1000);
      for (const sql of [
        'UPDATE ledger_entries SET debit_minor = debit_minor + 1',
        'DELETE FROM ledger_entries',
        'UPDATE ledger_transactions SET kind = kind',
        'DELETE FROM ledger_transactions',
        'TRUNCATE ledger_entries CASCADE',
      ]) {
        await expect(f.c.db.query(sql)).rejects.toThrow(/append-only/);
      }
      // A transaction row without entries, and one whose entries do not balance: refused at insert.
      await expect(
        f.c.db.query(
          `INSERT INTO ledger_transactions (app_id, mode, kind, source_id, occurred_at) VALUES ($1, 'TEST', 'capture', 'bogus-1', now())`,
          [f.scope.appId],
        ),
      ).rejects.toThrow(/does not balance/);
      await expect(
        f.c.db.query(
          `WITH tx AS (INSERT INTO ledger_transactions (app_id, mode, kind, source_id, occurred_at)
                       VALUES ($1, 'TEST', 'capture', 'bogus-2', now()) RETURNING id)
           INSERT INTO ledger_entries (transaction_id, app_id, mode, account, debit_minor, credit_minor)
           SELECT id, $1, 'TEST', a, d, c FROM tx, (VALUES ('gateway_clearing', 100, 0), ('merchant_payable', 0, 99)) v (a, d, c)`,
          [f.scope.appId],
        ),
      ).rejects.toThrow(/does not balance/);
    });

    it('balances: one row per account for an app and mode, summing to zero; the other mode has its own', async () => {
      const a = await newApp();
      await captured(70000, a);
      const rows = await ledger.balances({ appId: a.appId, mode: 'TEST' });
      expect(rows).toEqual([
        { account: 'gateway_clearing', debitMinor: 70000, creditMinor: 0, balanceMinor: 70000 },
        { account: 'merchant_payable', debitMinor: 0, creditMinor: 70000, balanceMinor: -70000 },
        { account: 'refunds_pending', debitMinor: 0, creditMinor: 0, balanceMinor: 0 },
        { account: 'gateway_fees', debitMinor: 0, creditMinor: 0, balanceMinor: 0 },
        { account: 'bank', debitMinor: 0, creditMinor: 0, balanceMinor: 0 },
      ]);
      expect(rows.reduce((sum, r) => sum + r.balanceMinor, 0)).toBe(0);
      const live = await ledger.balances({ appId: a.appId, mode: 'LIVE' });
      expect(live).toHaveLength(5);
      expect(live.every((r) => r.balanceMinor === 0 && r.debitMinor === 0)).toBe(true);
    });
  });

  describe('sums past 2^53', () => {
    /** Its ledger passes 2^53 (as after a 91,000-line file of 10^11 lines). */
    let big: Scope;
    /** An ordinary app. */
    let small: Scope;
    /** Two apps each safe, whose total is not. */
    let half1: Scope;
    let half2: Scope;
    let bounded: Scope;
    let collector: Scope;

    /** Balanced ledger transactions posted straight into the tables: bank Dr / clearing Cr. */
    async function seedLedger(appId: number, count: number, amount: bigint, tag: string) {
      await f.c.db.query(
        `WITH tx AS (
           INSERT INTO ledger_transactions (app_id, mode, kind, source_id, occurred_at)
           SELECT $1, 'TEST', 'settlement', $3 || '-' || g, now() FROM generate_series(1, $2) g
           RETURNING id)
         INSERT INTO ledger_entries (transaction_id, app_id, mode, account, debit_minor, credit_minor)
         SELECT tx.id, $1, 'TEST', e.account, e.debit, e.credit
           FROM tx, (VALUES ('bank', $4::bigint, 0::bigint), ('gateway_clearing', 0::bigint, $4::bigint))
             AS e (account, debit, credit)`,
        [appId, count, `seed-${tag}`, amount.toString()],
      );
    }
    const importCsv = (
      scope: { appId: number; mode: 'TEST' | 'LIVE' },
      lines: string[],
      gateway = 'sandbox',
    ) => f.get(SettlementsService).importCsv(scope, gateway, [HEADER, ...lines].join('\n'));

    beforeAll(async () => {
      f.c.clock.advance(MORNING - f.c.clock.nowMs());
      big = await newApp();
      small = await newApp();
      half1 = await newApp();
      half2 = await newApp();
      bounded = await newApp();
      collector = await newApp();
      // 91 x 10^14 = 9.1 x 10^15 > 2^53 - 1 = 9,007,199,254,740,991.
      await seedLedger(big.appId, 91, 100_000_000_000_000n, 'big');
      // 5 x 10^15 each: each app safe, together 10^16.
      await seedLedger(half1.appId, 5, 1_000_000_000_000_000n, 'half1');
      await seedLedger(half2.appId, 5, 1_000_000_000_000_000n, 'half2');
      expect(
        await importCsv(small, [
          'SMALL-1,5000,BDT,2027-04-01T05:00:00Z,100',
          'SMALL-2,5000,BDT,2027-04-01T06:00:00Z,100',
        ]),
      ).toMatchObject({ lines: 2, imported: 2, rejected: [] });
    });

    it('all-app balances are refused AMOUNT_OUT_OF_RANGE naming the app whose figures overflow', async () => {
      const all = await refusal(ledger.balances({}));
      expect(all.code).toBe('AMOUNT_OUT_OF_RANGE');
      expect(all.message).toContain(`app ${big.appId}`);
      expect(all.details).toEqual([
        expect.objectContaining({
          field: 'applicationId',
          message: expect.stringContaining(`app ${big.appId}: bank debitMinor is 9100000000000000`),
        }),
      ]);
      // The app's own view, too: its figures cannot be answered exactly.
      const own = await refusal(ledger.balances({ appId: big.appId, mode: 'TEST' }));
      expect(own.code).toBe('AMOUNT_OUT_OF_RANGE');
      expect(own.message).toContain(`app ${big.appId}`);
    });

    it("another app's balances stay exact, asked for by app and for a caller scoped to that app", async () => {
      const expected = [
        { account: 'gateway_clearing', debitMinor: 0, creditMinor: 10_000, balanceMinor: -10_000 },
        { account: 'merchant_payable', debitMinor: 0, creditMinor: 0, balanceMinor: 0 },
        { account: 'refunds_pending', debitMinor: 0, creditMinor: 0, balanceMinor: 0 },
        { account: 'gateway_fees', debitMinor: 200, creditMinor: 0, balanceMinor: 200 },
        { account: 'bank', debitMinor: 9_800, creditMinor: 0, balanceMinor: 9_800 },
      ];
      expect(await ledger.balances({ appId: small.appId, mode: 'TEST' })).toEqual(expected);
      // Without an app: every app in the caller's scope, i.e. theirs only.
      expect(await ledger.balances({ appIds: [small.appId] })).toEqual(expected);
    });

    it('a total over several apps that passes 2^53 is refused naming those apps; each app alone is exact', async () => {
      const scope = [half1.appId, half2.appId];
      const both = await refusal(ledger.balances({ appIds: scope }));
      expect(both.code).toBe('AMOUNT_OUT_OF_RANGE');
      expect(both.message).toContain(`apps ${half1.appId}, ${half2.appId}`);
      const one = await ledger.balances({ appId: half1.appId, appIds: scope });
      expect(one.find((r) => r.account === 'bank')).toEqual({
        account: 'bank',
        debitMinor: 5 * BOUND,
        creditMinor: 0,
        balanceMinor: 5 * BOUND,
      });
    });

    it('reconciliation runs over every app compare the ledger exactly: completed, balanced, never an error', async () => {
      const reconciliation = f.get(ReconciliationService);
      const all = await reconciliation.run('2027-04-01', {});
      expect(all).toMatchObject({
        appId: null,
        missingInternal: 2,
        ledgerBalanced: true,
        status: 'COMPLETED',
        failureReason: null,
      });
      const one = await reconciliation.run('2027-04-01', { appId: big.appId });
      expect(one).toMatchObject({ ledgerBalanced: true, status: 'COMPLETED' });
      const listed = await reconciliation.list(0, 20, '2027-04-01');
      expect(listed.items.map((r) => Number(r.id)).sort()).toEqual(
        [Number(all.id), Number(one.id)].sort(),
      );
    });

    it('the nightly job completes its run over every app, however large one app’s sums', async () => {
      const run = await f.get(NightlyReconciliationJob).tick();
      expect(run).toMatchObject({
        period: '2027-04-01',
        trigger: 'nightly',
        appId: null,
        status: 'COMPLETED',
        ledgerBalanced: true,
        missingInternal: 2,
      });
    });

    it('a nightly run that cannot be completed is recorded FAILED with the reason; other runs go on', async () => {
      f.c.clock.advance(24 * 3600_000); // the nightly run of 2027-04-02
      const repo = f.get(ReconciliationRepository);
      const spy = jest
        .spyOn(repo, 'classify')
        .mockRejectedValueOnce(
          figuresOutOfRange('Reconciliation figures', [
            { appId: big.appId, figure: 'settled total', value: 9_100_000_000_000_000n },
          ]),
        );
      let failed;
      try {
        failed = await f.get(NightlyReconciliationJob).tick();
      } finally {
        spy.mockRestore();
      }
      expect(failed).toMatchObject({
        period: '2027-04-02',
        trigger: 'nightly',
        status: 'FAILED',
        ledgerBalanced: false,
        matched: 0,
      });
      expect(failed!.failureReason).toContain(`app ${big.appId}`);
      const reconciliation = f.get(ReconciliationService);
      expect(await reconciliation.get(failed!.id)).toMatchObject({
        status: 'FAILED',
        failureReason: expect.stringContaining(`app ${big.appId}`),
      });
      // The period stays claimed (no second nightly run), and other apps' runs are unaffected.
      expect(await f.get(NightlyReconciliationJob).tick()).toBeNull();
      const other = await reconciliation.run('2027-04-02', { appId: small.appId });
      expect(other).toMatchObject({ status: 'COMPLETED', ledgerBalanced: true });
    });

    it('an import that would take the settled total of an app and mode past 10^15 is refused whole; up to exactly 10^15 is imported', async () => {
      const a = bounded;
      // 10^15 - 5 x 10^10 already settled (one crafted line).
      const imp = await f.c.db.query(
        `INSERT INTO settlement_imports (app_id, mode, gateway, source, lines, imported, duplicates, rejected)
         VALUES ($1, 'TEST', 'sandbox', 'csv', 1, 1, 0, '[]') RETURNING id`,
        [a.appId],
      );
      await f.c.db.query(
        `INSERT INTO settlement_lines (app_id, mode, gateway, gateway_txn_id, amount_minor, fee_minor, currency, transaction_time, import_id)
         VALUES ($1, 'TEST', 'sandbox', 'SEEDED', $2, 0, 'BDT', now(), $3)`,
        [a.appId, BOUND - 50_000_000_000, imp.rows[0].id],
      );
      const count = async () =>
        (
          await f.c.db.query(
            `SELECT (SELECT count(*)::int FROM settlement_lines WHERE app_id = $1) AS lines,
                    (SELECT count(*)::int FROM settlement_imports WHERE app_id = $1) AS imports,
                    (SELECT count(*)::int FROM ledger_entries WHERE app_id = $1) AS entries`,
            [a.appId],
          )
        ).rows[0];
      const before = await count();
      const over = await refusal(
        importCsv(a, [
          'OK-1,1000,BDT,2027-04-01T05:00:00Z,',
          'OVER-1,50000000000,BDT,2027-04-01T05:00:00Z,',
        ]),
      );
      expect(over.code).toBe('VALIDATION_FAILED');
      expect(over.details![0].field).toBe('csv');
      expect(over.details![0].message).toContain(`app ${a.appId} (TEST)`);
      expect(await count()).toEqual(before);
      // Up to exactly 10^15 is fine; one minor unit more is not. The other mode has its own total.
      expect(await importCsv(a, ['AT-1,50000000000,BDT,2027-04-01T05:00:00Z,'])).toMatchObject({
        imported: 1,
      });
      const oneMore = await refusal(importCsv(a, ['ONE-MORE,1,BDT,2027-04-01T05:00:00Z,']));
      expect(oneMore.code).toBe('VALIDATION_FAILED');
      // (a LIVE settlement comes from a gateway that serves LIVE)
      expect(
        await importCsv(
          { appId: a.appId, mode: 'LIVE' },
          ['LIVE-1,1,BDT,2027-04-01T05:00:00Z,'],
          'sslcommerz',
        ),
      ).toMatchObject({ imported: 1 });
    });

    it("a gateway's pulled lines that would pass the bound are refused for that app alone; the run and other apps go on", async () => {
      // `bounded` is at exactly 10^15 now (the test before); each app captures once today.
      const captures = [];
      for (const a of [bounded, small]) {
        const p = await createPayment(a, 10_000);
        captures.push(await settle(a, p.id));
      }
      const run = await f.get(ReconciliationService).run('2027-04-03', {}, { fetch: true });
      expect(run).toMatchObject({ status: 'COMPLETED', ledgerBalanced: true });
      const pulled = await f.c.db.query(
        `SELECT app_id::int AS app FROM settlement_lines WHERE gateway_txn_id = ANY($1) ORDER BY app_id`,
        [captures],
      );
      expect(pulled.rows).toEqual([{ app: small.appId }]);
    });

    it('daily collections of a day past 2^53 are refused naming the app; another app’s are answered', async () => {
      const a = collector;
      for (let i = 0; i < 2; i++) await captured(10_000, a);
      // Two captures of 2^52 each: the day's sum is 2^53.
      await f.c.db.query(
        `UPDATE payments SET amount_minor = 4503599627370496 WHERE app_id = $1 AND status = 'SUCCEEDED'`,
        [a.appId],
      );
      const payments = f.get(PaymentsService);
      const err = await refusal(payments.dailyCollections(a, 2));
      expect(err.code).toBe('AMOUNT_OUT_OF_RANGE');
      expect(err.message).toContain(`app ${a.appId}`);
      expect(await payments.dailyCollections(small, 2)).toHaveLength(2);
    });

    it('daily refunds of a day past 2^53 are refused naming the app, as collections are; another app’s are answered', async () => {
      const a = await newApp();
      // Two refunds' postings of 2^52 each, today on the test clock: the day's refunded sum is 2^53.
      await f.c.db.query(
        `WITH tx AS (
           INSERT INTO ledger_transactions (app_id, mode, kind, source_id, occurred_at)
           SELECT $1, 'TEST', 'refund_succeeded', 'seed-refund-' || g, $2 FROM generate_series(1, 2) g
           RETURNING id)
         INSERT INTO ledger_entries (transaction_id, app_id, mode, account, debit_minor, credit_minor)
         SELECT tx.id, $1, 'TEST', e.account, e.debit, e.credit
           FROM tx, (VALUES ('refunds_pending', $3::bigint, 0::bigint), ('gateway_clearing', 0::bigint, $3::bigint))
             AS e (account, debit, credit)`,
        [a.appId, f.c.clock.now(), '4503599627370496'],
      );
      const daily = f.get(DailyCollectionsService);
      const err = await refusal(daily.list(a, 2));
      expect(err.code).toBe('AMOUNT_OUT_OF_RANGE');
      expect(err.message).toContain(`app ${a.appId}`);
      expect(err.details).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/refundedMinor of \d{4}-\d{2}-\d{2} is 9007199254740992/),
        }),
      ]);
      expect((await daily.list(small, 2)).map((d) => d.refundedMinor)).toEqual([0, 0]);
    });
  });
});
