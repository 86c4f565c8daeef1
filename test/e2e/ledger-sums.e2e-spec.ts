import { figuresOutOfRange } from '../../src/common/money/exact-sum';
import { NightlyReconciliationJob } from '../../src/reconciliation';
import { ReconciliationRepository } from '../../src/reconciliation/reconciliation.repository';
import { adminWith, bearer, createApp, CreatedApp, login } from '../support/factories';
import { createPayment, settle } from '../support/payments';
import { createTestApp, SUPER_ADMIN, TestApp } from '../support/test-app';

/** 10:00 in Dhaka on 2 April 2027 (the test clock only moves forward). */
const MORNING = Date.parse('2027-04-02T04:00:00Z');
const BOUND = 1_000_000_000_000_000; // 10^15

/**
 * Issue 56 (4), decisions section 14 "sums": sums past 2^53 never make a view
 * answer 500. Sums are exact; a figure above 2^53-1 is 422
 * AMOUNT_OUT_OF_RANGE naming the app, for that request alone; other apps'
 * views keep working; the nightly job records a run instead of crashing; an
 * import past 10^15 settled per app and mode is 400. The large figures are
 * crafted in the database (a 91,000-line import would take minutes).
 */
describe('ledger sums past 2^53', () => {
  let t: TestApp;
  /** Its ledger passes 2^53 (as after a 91,000-line file of 10^11 lines). */
  let big: CreatedApp;
  /** An ordinary app. */
  let small: CreatedApp;
  /** Two apps each safe, whose total is not. */
  let half1: CreatedApp;
  let half2: CreatedApp;
  /** Made before the clock jumps (createApp's cached admin session lasts an hour). */
  let bounded: CreatedApp;
  let collector: CreatedApp;
  let root: Record<string, string>;

  /** Balanced ledger transactions posted straight into the tables: bank Dr / clearing Cr. */
  async function seedLedger(appId: number, count: number, amount: bigint, tag: string) {
    await t.db.query(
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

  const http = () => t.http();
  const balances = (query: string, as = root) =>
    http().get(`/api/v1/admin/ledger/balances${query}`).set(as);
  const header = 'gateway_txn_id,amount_minor,currency,transaction_time,fee_minor';
  const importCsv = (a: CreatedApp, csvLines: string[]) =>
    http()
      .post(`/api/v1/admin/settlements/import?applicationId=${a.id}&mode=TEST`)
      .set(root)
      .send({ gateway: 'sandbox', csv: [header, ...csvLines].join('\n') });

  beforeAll(async () => {
    t = await createTestApp();
    t.clock.advance(MORNING - t.clock.nowMs());
    root = bearer(await login(t, SUPER_ADMIN.email, SUPER_ADMIN.password));
    big = await createApp(t);
    small = await createApp(t);
    half1 = await createApp(t);
    half2 = await createApp(t);
    bounded = await createApp(t);
    collector = await createApp(t);
    // 91 x 10^14 = 9.1 x 10^15 > 2^53 - 1 = 9,007,199,254,740,991.
    await seedLedger(big.id, 91, 100_000_000_000_000n, 'big');
    // 5 x 10^15 each: each app safe, together 10^16.
    await seedLedger(half1.id, 5, 1_000_000_000_000_000n, 'half1');
    await seedLedger(half2.id, 5, 1_000_000_000_000_000n, 'half2');
    const res = await importCsv(small, [
      'SMALL-1,5000,BDT,2027-04-01T05:00:00Z,100',
      'SMALL-2,5000,BDT,2027-04-01T06:00:00Z,100',
    ]);
    expect(res.status).toBe(201);
  });
  afterAll(() => t.close());

  it('all-app balances are 422 AMOUNT_OUT_OF_RANGE naming the app whose figures overflow, not 500', async () => {
    const all = await balances('');
    expect(all.status).toBe(422);
    expect(all.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
    expect(all.body.meta.message).toContain(`app ${big.id}`);
    expect(all.body.meta.details).toEqual([
      expect.objectContaining({
        field: 'applicationId',
        message: expect.stringContaining(`app ${big.id}: bank debitMinor is 9100000000000000`),
      }),
    ]);
    // The app's own view, too: its figures cannot be answered exactly.
    const own = await balances(`?applicationId=${big.id}&mode=TEST`);
    expect(own.status).toBe(422);
    expect(own.body.meta.message).toContain(`app ${big.id}`);
  });

  it("another app's balances stay 200 and exact, for a super admin and for that app's staff", async () => {
    const expected = [
      { account: 'gateway_clearing', debitMinor: 0, creditMinor: 10_000, balanceMinor: -10_000 },
      { account: 'merchant_payable', debitMinor: 0, creditMinor: 0, balanceMinor: 0 },
      { account: 'refunds_pending', debitMinor: 0, creditMinor: 0, balanceMinor: 0 },
      { account: 'gateway_fees', debitMinor: 200, creditMinor: 0, balanceMinor: 200 },
      { account: 'bank', debitMinor: 9_800, creditMinor: 0, balanceMinor: 9_800 },
    ];
    const mine = await balances(`?applicationId=${small.id}&mode=TEST`);
    expect(mine.status).toBe(200);
    expect(mine.body.data).toEqual(expected);
    const staff = await adminWith(t, ['invoices:read'], { appIds: [small.id] });
    // Without applicationId: every app in the caller's scope, i.e. theirs only.
    const scoped = await balances('', bearer(staff.token));
    expect(scoped.status).toBe(200);
    expect(scoped.body.data).toEqual(expected);
  });

  it('a total over several apps that passes 2^53 is 422 naming those apps; each app alone is 200', async () => {
    const staff = await adminWith(t, ['invoices:read'], { appIds: [half1.id, half2.id] });
    const both = await balances('', bearer(staff.token));
    expect(both.status).toBe(422);
    expect(both.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
    expect(both.body.meta.message).toContain(`apps ${half1.id}, ${half2.id}`);
    const one = await balances(`?applicationId=${half1.id}`, bearer(staff.token));
    expect(one.status).toBe(200);
    expect(one.body.data.find((r: { account: string }) => r.account === 'bank')).toEqual({
      account: 'bank',
      debitMinor: 5 * BOUND,
      creditMinor: 0,
      balanceMinor: 5 * BOUND,
    });
  });

  it('reconciliation runs over every app compare the ledger exactly: 201, balanced, never 500', async () => {
    const all = await http()
      .post('/api/v1/admin/reconciliation/runs?period=2027-04-01')
      .set(root)
      .send();
    expect(all.status).toBe(201);
    expect(all.body.data).toMatchObject({
      applicationId: null,
      missingInternal: 2,
      ledgerBalanced: true,
      status: 'COMPLETED',
      failureReason: null,
    });
    const one = await http()
      .post(`/api/v1/admin/reconciliation/runs?period=2027-04-01&applicationId=${big.id}`)
      .set(root)
      .send();
    expect(one.status).toBe(201);
    expect(one.body.data).toMatchObject({ ledgerBalanced: true, status: 'COMPLETED' });
    const listed = await http()
      .get('/api/v1/admin/reconciliation/runs?period=2027-04-01')
      .set(root);
    expect(listed.status).toBe(200);
  });

  it('the nightly job completes its run over every app, however large one app’s sums', async () => {
    const run = await t.app.get(NightlyReconciliationJob).tick();
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
    t.clock.advance(24 * 3600_000); // the nightly run of 2027-04-02
    root = bearer(await login(t, SUPER_ADMIN.email, SUPER_ADMIN.password));
    const repo = t.app.get(ReconciliationRepository);
    const spy = jest
      .spyOn(repo, 'classify')
      .mockRejectedValueOnce(
        figuresOutOfRange('Reconciliation figures', [
          { appId: big.id, figure: 'settled total', value: 9_100_000_000_000_000n },
        ]),
      );
    let failed;
    try {
      failed = await t.app.get(NightlyReconciliationJob).tick();
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
    expect(failed!.failureReason).toContain(`app ${big.id}`);
    const shown = await http().get(`/api/v1/admin/reconciliation/runs/${failed!.id}`).set(root);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({
      status: 'FAILED',
      failureReason: expect.stringContaining(`app ${big.id}`),
    });
    // The period stays claimed (no second nightly run), and other apps' runs are unaffected.
    expect(await t.app.get(NightlyReconciliationJob).tick()).toBeNull();
    const other = await http()
      .post(`/api/v1/admin/reconciliation/runs?period=2027-04-02&applicationId=${small.id}`)
      .set(root)
      .send();
    expect(other.status).toBe(201);
    expect(other.body.data).toMatchObject({ status: 'COMPLETED', ledgerBalanced: true });
  });

  it('an import that would take the settled total of an app and mode past 10^15 is 400 and imports nothing', async () => {
    const a = bounded;
    // 10^15 - 5 x 10^10 already settled (one crafted line).
    const imp = await t.db.query(
      `INSERT INTO settlement_imports (app_id, mode, gateway, source, lines, imported, duplicates, rejected)
       VALUES ($1, 'TEST', 'sandbox', 'csv', 1, 1, 0, '[]') RETURNING id`,
      [a.id],
    );
    await t.db.query(
      `INSERT INTO settlement_lines (app_id, mode, gateway, gateway_txn_id, amount_minor, fee_minor, currency, transaction_time, import_id)
       VALUES ($1, 'TEST', 'sandbox', 'SEEDED', $2, 0, 'BDT', now(), $3)`,
      [a.id, BOUND - 50_000_000_000, imp.rows[0].id],
    );
    const count = async () =>
      (
        await t.db.query(
          `SELECT (SELECT count(*)::int FROM settlement_lines WHERE app_id = $1) AS lines,
                  (SELECT count(*)::int FROM settlement_imports WHERE app_id = $1) AS imports,
                  (SELECT count(*)::int FROM ledger_entries WHERE app_id = $1) AS entries`,
          [a.id],
        )
      ).rows[0];
    const before = await count();
    const over = await importCsv(a, [
      'OK-1,1000,BDT,2027-04-01T05:00:00Z,',
      'OVER-1,50000000000,BDT,2027-04-01T05:00:00Z,',
    ]);
    expect(over.status).toBe(400);
    expect(over.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(over.body.meta.details[0].field).toBe('csv');
    expect(over.body.meta.details[0].message).toContain(`app ${a.id} (TEST)`);
    expect(await count()).toEqual(before);
    // Up to exactly 10^15 is fine; one minor unit more is not. The other mode has its own total.
    const exact = await importCsv(a, ['AT-1,50000000000,BDT,2027-04-01T05:00:00Z,']);
    expect(exact.status).toBe(201);
    expect(exact.body.data).toMatchObject({ imported: 1 });
    expect((await importCsv(a, ['ONE-MORE,1,BDT,2027-04-01T05:00:00Z,'])).status).toBe(400);
    const live = await http()
      .post(`/api/v1/admin/settlements/import?applicationId=${a.id}&mode=LIVE`)
      .set(root)
      // (a LIVE settlement comes from a gateway that serves LIVE)
      .send({ gateway: 'sslcommerz', csv: `${header}\nLIVE-1,1,BDT,2027-04-01T05:00:00Z,` });
    expect(live.status).toBe(201);
  });

  it("a gateway's pulled lines that would pass the bound are refused for that app alone; the run and other apps go on", async () => {
    // `bounded` is at exactly 10^15 now (the test before); each app captures once today.
    const captures = [];
    for (const a of [bounded, small]) {
      const p = await createPayment(t, a.TEST, { amountMinor: 10_000 });
      const s = await settle(t, a.TEST, p.id);
      expect(s.status).toBe(200);
      captures.push(s.body.data.gatewayTxnId as string);
    }
    const run = await http()
      .post('/api/v1/admin/reconciliation/runs?period=2027-04-03&fetch=true')
      .set(root)
      .send();
    expect(run.status).toBe(201);
    expect(run.body.data).toMatchObject({ status: 'COMPLETED', ledgerBalanced: true });
    const pulled = await t.db.query(
      `SELECT app_id::int AS app FROM settlement_lines WHERE gateway_txn_id = ANY($1) ORDER BY app_id`,
      [captures],
    );
    expect(pulled.rows).toEqual([{ app: small.id }]);
  });

  it('daily collections of a day past 2^53 are 422 naming the app; another app’s are 200', async () => {
    const a = collector;
    for (let i = 0; i < 2; i++) {
      const p = await createPayment(t, a.TEST, { amountMinor: 10_000 });
      expect((await settle(t, a.TEST, p.id)).status).toBe(200);
    }
    // Two captures of 2^52 each: the day's sum is 2^53.
    await t.db.query(
      `UPDATE payments SET amount_minor = 4503599627370496 WHERE app_id = $1 AND status = 'SUCCEEDED'`,
      [a.id],
    );
    const daily = (c: CreatedApp) =>
      http()
        .get('/api/v1/reports/daily-collections?days=2')
        .set({ 'X-Api-Key': c.TEST.apiKey, 'X-Api-Secret': c.TEST.apiSecret });
    const res = await daily(a);
    expect(res.status).toBe(422);
    expect(res.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
    expect(res.body.meta.message).toContain(`app ${a.id}`);
    const other = await daily(small);
    expect(other.status).toBe(200);
  });
});
