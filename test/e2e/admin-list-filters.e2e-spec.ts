import { asApp, bearer, createApp, type CreatedApp, superAdminToken } from '../support/factories';
import { createPayment, settle } from '../support/payments';
import { createTestApp, type TestApp } from '../support/test-app';

/** The admin list filters the dashboard's screens use: awaitingApproval on refunds, gateway on payments. */
describe('admin list filters', () => {
  let t: TestApp;
  let root: string;
  let app: CreatedApp;
  const ids = { awaiting: 0, automatic: 0, payment: 0 };

  beforeAll(async () => {
    t = await createTestApp();
    root = await superAdminToken(t);
    app = await createApp(t);
    await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/settings`)
      .set(bearer(root))
      .send({ refundApprovalThresholdMinor: 10_000 });
    const p = await createPayment(t, app.TEST, { amountMinor: 50_000 });
    await settle(t, app.TEST, p.id);
    ids.payment = p.id;
    const small = await t
      .http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(app.TEST))
      .send({ amountMinor: 5_000 });
    const large = await t
      .http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(app.TEST))
      .send({ amountMinor: 20_000 });
    ids.automatic = small.body.data.id;
    ids.awaiting = large.body.data.id;
    expect(large.body.data.approvalRequired).toBe(true);
  });
  afterAll(() => t.close());

  const refunds = (query: string) =>
    t.http().get(`/api/v1/admin/refunds?applicationId=${app.id}&${query}`).set(bearer(root));

  it('awaitingApproval=true: only refunds waiting for an operator; false: the others', async () => {
    const waiting = await refunds('awaitingApproval=true');
    expect(waiting.status).toBe(200);
    expect(waiting.body.data.map((r: { id: number }) => r.id)).toEqual([ids.awaiting]);
    expect(waiting.body.pagination.totalElements).toBe(1);
    const others = await refunds('awaitingApproval=false');
    expect(others.body.data.map((r: { id: number }) => r.id)).toEqual([ids.automatic]);
    // Once approved, it no longer waits.
    await t.http().post(`/api/v1/admin/refunds/${ids.awaiting}/approve`).set(bearer(root));
    expect((await refunds('awaitingApproval=true')).body.data).toEqual([]);
  });

  it('awaitingApproval=yes is 400 VALIDATION_FAILED', async () => {
    const res = await refunds('awaitingApproval=yes');
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
  });

  it('gateway narrows payments to one gateway', async () => {
    const list = (gateway: string) =>
      t
        .http()
        .get(`/api/v1/admin/payments?applicationId=${app.id}&gateway=${gateway}`)
        .set(bearer(root));
    const sandbox = await list('sandbox');
    expect(sandbox.body.data.map((p: { id: number }) => p.id)).toEqual([ids.payment]);
    expect((await list('bkash')).body.data).toEqual([]);
  });
});
