import { adminWith, bearer, createApp, CreatedApp, login } from '../support/factories';
import { createTestApp, SUPER_ADMIN, TestApp } from '../support/test-app';

/** 10:00 in Dhaka on 2 April 2027 (the test clock only moves forward). */
const MORNING = Date.parse('2027-04-02T04:00:00Z');
const BOUND = 1_000_000_000_000_000; // 10^15

/**
 * Issue 56 (4), decisions section 14 "sums": the HTTP contract of sums past
 * 2^53. A figure above 2^53-1 is 422 AMOUNT_OUT_OF_RANGE naming the app (not
 * 500), for that request alone; an app-scoped admin's balances are their
 * app's; an import past 10^15 settled per app and mode is 400
 * VALIDATION_FAILED. The rules themselves (exact sums, the apps named, runs
 * and the nightly job over every app, the import bound, pulled lines, daily
 * collections) are proven on the services in
 * test/medium/ledger-postings.medium-spec.ts. The large figures are crafted
 * in the database (a 91,000-line import would take minutes).
 */
describe('ledger sums past 2^53', () => {
  let t: TestApp;
  /** Its ledger passes 2^53 (as after a 91,000-line file of 10^11 lines). */
  let big: CreatedApp;
  /** An ordinary app. */
  let small: CreatedApp;
  /** Made before the clock jumps (createApp's cached admin session lasts an hour). */
  let bounded: CreatedApp;
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
    bounded = await createApp(t);
    // 91 x 10^14 = 9.1 x 10^15 > 2^53 - 1 = 9,007,199,254,740,991.
    await seedLedger(big.id, 91, 100_000_000_000_000n, 'big');
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

  it('an import that would take the settled total of an app and mode past 10^15 is 400 VALIDATION_FAILED naming them in its csv detail, and imports nothing', async () => {
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
  });
});
