import { ReconciliationService } from '../../src/reconciliation';
import { asApp, bearer, createApp, CreatedApp, login } from '../support/factories';
import { accountBalances, expectBalancedLedger } from '../support/ledger';
import { createPayment, settle } from '../support/payments';
import { createTestApp, SUPER_ADMIN, TestApp } from '../support/test-app';

/** 10:00 in Dhaka on 10 March 2027 (the test clock only moves forward: tokens stay valid). */
const MORNING = Date.parse('2027-03-10T04:00:00Z');
const PERIOD = '2027-03-10';

describe('settlement import and reconciliation', () => {
  let t: TestApp;
  let app: CreatedApp;
  /** Made before the clock jumps: createApp's cached admin session lasts an hour. */
  let other: CreatedApp;
  let fetched: CreatedApp;
  let imports: CreatedApp;
  beforeAll(async () => {
    t = await createTestApp();
    t.clock.advance(MORNING - t.clock.nowMs());
    app = await createApp(t);
    other = await createApp(t);
    fetched = await createApp(t);
    imports = await createApp(t);
  });
  afterEach(() => expectBalancedLedger(t.db));
  afterAll(() => t.close());

  const http = () => t.http();
  /** A fresh admin session (the test clock jumps hours ahead; sessions last one hour). */
  const root = async () => bearer(await login(t, SUPER_ADMIN.email, SUPER_ADMIN.password));

  async function captured(amountMinor: number, a = app) {
    const p = await createPayment(t, a.TEST, { amountMinor });
    const s = await settle(t, a.TEST, p.id);
    expect(s.status).toBe(200);
    const succeededAt = new Date(t.clock.nowMs()).toISOString();
    return { ...(s.body.data as { id: number; gatewayTxnId: string }), succeededAt };
  }
  const importCsv = async (csv: string, a = app, mode = 'TEST') =>
    http()
      .post(`/api/v1/admin/settlements/import?applicationId=${a.id}&mode=${mode}`)
      .set(await root())
      .send({ gateway: 'sandbox', csv });
  const runFor = async (query: string) =>
    http()
      .post(`/api/v1/admin/reconciliation/runs?${query}`)
      .set(await root())
      .send();

  it('imports good lines, skips duplicates, reports bad lines by number, and posts settlements to the ledger', async () => {
    const a = imports;
    const p = await captured(150000, a);
    const csv = [
      'gateway_txn_id,amount_minor,currency,transaction_time,fee_minor,settled_on',
      `${p.gatewayTxnId},150000,BDT,${p.succeededAt},3000,2027-03-11`,
      'BROKEN,abc,BDT,2027-03-10T05:00:00Z,,',
      `OTHER-1,5000,BDT,2027-03-10T05:00:00Z,,`,
    ].join('\n');
    const first = await importCsv(csv, a);
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
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
    const again = await importCsv(csv, a);
    expect(again.body.data).toMatchObject({ lines: 3, imported: 0, duplicates: 2 });
    // Captured 150,000; settled 155,000 (one line has no capture) of which 3,000 in fees.
    expect(await accountBalances(t.db, a.id)).toEqual({
      gateway_clearing: 150000 - 155000,
      merchant_payable: -150000,
      bank: 152000,
      gateway_fees: 3000,
    });
    const noApp = await http()
      .post('/api/v1/admin/settlements/import?applicationId=999999&mode=TEST')
      .set(await root())
      .send({ gateway: 'sandbox', csv: 'gateway_txn_id,amount_minor,currency,transaction_time' });
    expect(noApp.status).toBe(404);
    const bad = await importCsv('txn,amount\n1,2', a);
    expect(bad.body.data.rejected).toEqual([
      { line: 1, reason: expect.stringContaining('header lacks') },
    ]);
    const unknown = await http()
      .post(`/api/v1/admin/settlements/import?applicationId=${a.id}&mode=TEST`)
      .set(await root())
      .send({ gateway: 'paypal', csv: 'x' });
    expect(unknown.status).toBe(400);
  });

  it('a run classifies each capture and line of the Dhaka day once, into the five classes; repeating it makes a new run with the same counts', async () => {
    const matched = await captured(10000);
    const mismatched = await captured(20000);
    const unsettled = await captured(30000);
    // 22:30 in Dhaka: inside the last two hours of the day.
    t.clock.advance(Date.parse('2027-03-10T16:30:00Z') - t.clock.nowMs());
    const late = await captured(40000);
    const csv = [
      'gateway_txn_id,amount_minor,currency,transaction_time',
      `${matched.gatewayTxnId},10000,BDT,${matched.succeededAt}`,
      `${mismatched.gatewayTxnId},19000,BDT,${mismatched.succeededAt}`,
      `GHOST-1,7000,BDT,2027-03-10T05:00:00+06:00`,
      // the day before: not this period
      `GHOST-0,7000,BDT,2027-03-09T23:00:00+06:00`,
    ].join('\n');
    expect((await importCsv(csv)).body.data.imported).toBe(4);

    const res = await runFor(`period=${PERIOD}&applicationId=${app.id}&mode=TEST`);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      applicationId: app.id,
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
      createdAt: expect.any(String),
    });
    const items = await http()
      .get(`/api/v1/admin/reconciliation/runs/${res.body.data.id}/items?size=100`)
      .set(await root());
    const byClass = Object.fromEntries(items.body.data.map((i: { class: string }) => [i.class, i]));
    expect(items.body.data).toHaveLength(4);
    expect(byClass.amountMismatch).toMatchObject({
      paymentId: mismatched.id,
      internalAmountMinor: 20000,
      settlementAmountMinor: 19000,
      gateway: 'sandbox',
      applicationId: app.id,
      mode: 'TEST',
    });
    expect(byClass.missingInternal).toMatchObject({
      paymentId: null,
      gatewayTxnId: 'GHOST-1',
      settlementAmountMinor: 7000,
    });
    expect(byClass.missingInSettlement).toMatchObject({
      paymentId: unsettled.id,
      settlementAmountMinor: null,
    });
    expect(byClass.deferred).toMatchObject({ paymentId: late.id, internalAmountMinor: 40000 });
    const onlyDeferred = await http()
      .get(`/api/v1/admin/reconciliation/runs/${res.body.data.id}/items?class=deferred`)
      .set(await root());
    expect(onlyDeferred.body.data.map((i: { paymentId: number }) => i.paymentId)).toEqual([
      late.id,
    ]);
    expect(onlyDeferred.body.pagination).toMatchObject({ totalElements: 1 });

    const again = await runFor(`period=${PERIOD}&applicationId=${app.id}&mode=TEST`);
    expect(again.body.data.id).not.toBe(res.body.data.id);
    const counts = (r: Record<string, unknown>) => [
      r.matched,
      r.amountMismatch,
      r.missingInternal,
      r.missingInSettlement,
      r.deferred,
    ];
    expect(counts(again.body.data)).toEqual(counts(res.body.data));
    const listed = await http()
      .get(`/api/v1/admin/reconciliation/runs?period=${PERIOD}`)
      .set(await root());
    expect(listed.body.data.map((r: { id: number }) => r.id)).toEqual(
      expect.arrayContaining([res.body.data.id, again.body.data.id]),
    );
    const one = await http()
      .get(`/api/v1/admin/reconciliation/runs/${res.body.data.id}`)
      .set(await root());
    expect(one.body.data.id).toBe(res.body.data.id);

    // Isolation: another app and the other mode see none of it.
    for (const q of [`applicationId=${other.id}`, `applicationId=${app.id}&mode=LIVE`]) {
      const r = (await runFor(`period=${PERIOD}&${q}`)).body.data;
      expect(counts(r)).toEqual([0, 0, 0, 0, 0]);
    }
  });

  it("fetch=true pulls the sandbox gateway's own settlement report: its captures match without a CSV", async () => {
    const a = fetched;
    await captured(11000, a);
    await captured(12000, a);
    const res = await runFor(`period=${PERIOD}&applicationId=${a.id}&mode=TEST&fetch=true`);
    expect(res.body.data).toMatchObject({
      matched: 2,
      missingInSettlement: 0,
      deferred: 0,
      ledgerBalanced: true,
    });
  });

  it('the nightly run of the previous Dhaka day is claimed by one replica only', async () => {
    const service = t.app.get(ReconciliationService);
    const [x, y] = await Promise.all([service.runNightly(), service.runNightly()]);
    const runs = [x, y].filter((r) => r !== null);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      period: '2027-03-09',
      trigger: 'nightly',
      appId: null,
      mode: null,
    });
    expect(await service.runNightly()).toBeNull();
  });

  it('imports a settlement file over 1 MiB through the API (up to 32 MiB, for admins only)', async () => {
    const lines = ['gateway_txn_id,amount_minor,currency,transaction_time'];
    for (let i = 0; i < 30_000; i++) lines.push(`BIG-${i},${1000 + i},BDT,2027-03-10T05:00:00Z`);
    const csv = lines.join('\n');
    expect(csv.length).toBeGreaterThan(1024 * 1024);
    const res = await importCsv(csv, imports);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ lines: 30_000, imported: 30_000, rejected: [] });
    // Without a bearer token the usual 1 MiB applies: refused before anything is read in full.
    const anonymous = await http()
      .post(`/api/v1/admin/settlements/import?applicationId=${imports.id}&mode=TEST`)
      .send({ gateway: 'sandbox', csv });
    expect(anonymous.status).toBe(413);
  });

  it('validates the period and refuses the future; needs reconciliation:run', async () => {
    expect((await runFor('period=2027-3-1')).status).toBe(400);
    expect((await runFor('period=2099-01-01')).status).toBe(400);
    expect(
      (
        await http()
          .get('/api/v1/admin/reconciliation/runs/999999')
          .set(await root())
      ).status,
    ).toBe(404);
    expect(
      (await http().post(`/api/v1/admin/reconciliation/runs?period=${PERIOD}`).send()).status,
    ).toBe(401);
    expect(
      (
        await http()
          .post(`/api/v1/admin/reconciliation/runs?period=${PERIOD}`)
          .set(asApp(app.TEST))
          .send()
      ).status,
    ).toBe(401);
  });
});
