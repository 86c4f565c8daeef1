import { asApp, bearer, createApp, CreatedApp, login } from '../support/factories';
import { expectBalancedLedger } from '../support/ledger';
import { createPayment, settle } from '../support/payments';
import { createTestApp, SUPER_ADMIN, TestApp } from '../support/test-app';

/** 10:00 in Dhaka on 10 March 2027 (the test clock only moves forward: tokens stay valid). */
const MORNING = Date.parse('2027-03-10T04:00:00Z');
const PERIOD = '2027-03-10';

/**
 * The HTTP contract of settlement imports and reconciliation runs: statuses,
 * envelopes, the large body an admin may send, validation and permissions.
 * The rules (what an import takes and posts, which class each capture and
 * line falls into, the nightly claim) are proven on the services in
 * test/medium/reconciliation.medium-spec.ts.
 */
describe('settlement import and reconciliation', () => {
  let t: TestApp;
  let app: CreatedApp;
  let imports: CreatedApp;
  beforeAll(async () => {
    t = await createTestApp();
    t.clock.advance(MORNING - t.clock.nowMs());
    app = await createApp(t);
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

  it('an import answers 201 with its result; an unknown applicationId is 404, an unknown gateway 400', async () => {
    const csv = [
      'gateway_txn_id,amount_minor,currency,transaction_time',
      'CONTRACT-1,5000,BDT,2027-03-10T05:00:00Z',
      'BROKEN,abc,BDT,2027-03-10T05:00:00Z',
    ].join('\n');
    const res = await importCsv(csv, imports);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      importId: expect.any(Number),
      lines: 2,
      imported: 1,
      duplicates: 0,
      rejected: [{ line: 3, reason: expect.stringContaining('amount_minor') }],
    });
    const noApp = await http()
      .post('/api/v1/admin/settlements/import?applicationId=999999&mode=TEST')
      .set(await root())
      .send({ gateway: 'sandbox', csv: 'gateway_txn_id,amount_minor,currency,transaction_time' });
    expect(noApp.status).toBe(404);
    expect(noApp.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    const unknown = await http()
      .post(`/api/v1/admin/settlements/import?applicationId=${imports.id}&mode=TEST`)
      .set(await root())
      .send({ gateway: 'paypal', csv: 'x' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.meta.errorCode).toBe('VALIDATION_FAILED');
  });

  it('a run answers 201 with the run; the runs list, the run and its items (filtered by class) read it back', async () => {
    const matched = await captured(10000);
    const csv = [
      'gateway_txn_id,amount_minor,currency,transaction_time',
      `${matched.gatewayTxnId},10000,BDT,${matched.succeededAt}`,
      `GHOST-1,7000,BDT,2027-03-10T05:00:00+06:00`,
    ].join('\n');
    expect((await importCsv(csv)).body.data.imported).toBe(2);

    const res = await runFor(`period=${PERIOD}&applicationId=${app.id}&mode=TEST`);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      applicationId: app.id,
      mode: 'TEST',
      period: PERIOD,
      matched: 1,
      amountMismatch: 0,
      missingInternal: 1,
      missingInSettlement: 0,
      deferred: 0,
      ledgerBalanced: true,
      status: 'COMPLETED',
      failureReason: null,
      trigger: 'api',
      createdAt: expect.any(String),
    });
    expect(new Date(res.body.data.createdAt).toISOString()).toBe(res.body.data.createdAt);
    const runId = res.body.data.id as number;
    const items = await http()
      .get(`/api/v1/admin/reconciliation/runs/${runId}/items?size=100`)
      .set(await root());
    expect(items.status).toBe(200);
    expect(items.body.data).toEqual([
      {
        class: 'missingInternal',
        paymentId: null,
        gateway: 'sandbox',
        gatewayTxnId: 'GHOST-1',
        internalAmountMinor: null,
        settlementAmountMinor: 7000,
        applicationId: app.id,
        mode: 'TEST',
      },
    ]);
    const byClass = async (cls: string) =>
      http()
        .get(`/api/v1/admin/reconciliation/runs/${runId}/items?class=${cls}`)
        .set(await root());
    const onlyMissing = await byClass('missingInternal');
    expect(onlyMissing.body.data.map((i: { gatewayTxnId: string }) => i.gatewayTxnId)).toEqual([
      'GHOST-1',
    ]);
    expect(onlyMissing.body.pagination).toMatchObject({ totalElements: 1 });
    const noneDeferred = await byClass('deferred');
    expect(noneDeferred.body.data).toEqual([]);
    expect(noneDeferred.body.pagination).toMatchObject({ totalElements: 0 });
    expect((await byClass('bogus')).status).toBe(400);

    const listed = await http()
      .get(`/api/v1/admin/reconciliation/runs?period=${PERIOD}`)
      .set(await root());
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((r: { id: number }) => r.id)).toContain(runId);
    const one = await http()
      .get(`/api/v1/admin/reconciliation/runs/${runId}`)
      .set(await root());
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(res.body.data);
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
