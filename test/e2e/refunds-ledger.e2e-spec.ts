import { appFixture } from '../support/app-fixture';
import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  superAdminToken,
} from '../support/factories';
import { createPayment, settle } from '../support/payments';
import { TestApp } from '../support/test-app';

/**
 * The HTTP contract of refunds: the refund's envelope and its reads, the
 * status of each refusal, Idempotency-Key replays, races through the API,
 * and the operators' approve and reject routes with their permission. The
 * rules (amounts, states, events, ledger postings, approval, the re-check)
 * are proven on the services in test/medium/refunds.medium-spec.ts and
 * test/medium/ledger-postings.medium-spec.ts.
 */
describe('refunds and the ledger', () => {
  let t: TestApp;
  let app: CreatedApp;
  let seq = 0;
  const fixture = appFixture({ balancedLedger: true });
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  const http = () => t.http();

  /** A captured payment of `amountMinor`. */
  async function captured(amountMinor = 100000, a = app) {
    const p = await createPayment(t, a.TEST, { amountMinor, customerReference: `r-${++seq}` });
    expect((await settle(t, a.TEST, p.id)).status).toBe(200);
    return p;
  }
  const refund = (paymentId: number, body: Record<string, unknown> = {}, creds = app.TEST) =>
    http().post(`/api/v1/payments/${paymentId}/refunds`).set(asApp(creds)).send(body);
  const paymentOf = async (id: number) =>
    (await http().get(`/api/v1/payments/${id}`).set(asApp(app.TEST))).body.data;

  it('POST /payments/:id/refunds is 201 with the refund (all of it by default); GET /refunds/:id and GET /payments/:id/refunds show it', async () => {
    const p = await captured(100000);
    const res = await refund(p.id, { reason: 'customer asked' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      paymentId: p.id,
      invoiceId: null,
      amountMinor: 100000,
      currency: 'BDT',
      status: 'SUCCEEDED',
      reason: 'customer asked',
      approvalRequired: false,
      manual: false,
      gatewayRefundId: `sbxr_rfd_${res.body.data.id}`,
      failureReason: null,
      mode: 'TEST',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await paymentOf(p.id)).amountRefundedMinor).toBe(100000);
    const got = await http().get(`/api/v1/refunds/${res.body.data.id}`).set(asApp(app.TEST));
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(res.body.data);
    const list = await http().get(`/api/v1/payments/${p.id}/refunds`).set(asApp(app.TEST));
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: { id: number }) => r.id)).toEqual([res.body.data.id]);
  });

  it('refusals: 422 AMOUNT_OUT_OF_RANGE past what is left, 409 INVALID_STATE unless SUCCEEDED, 404 in another app or mode, 400 for an amount that is not a positive integer', async () => {
    const p = await captured(100000);
    expect((await refund(p.id, { amountMinor: 30000 })).status).toBe(201);
    const over = await refund(p.id, { amountMinor: 70001 });
    expect(over.status).toBe(422);
    expect(over.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
    expect(over.body.meta.details).toEqual([{ field: 'amountMinor', message: 'at most 70000' }]);
    expect((await refund(p.id, { amountMinor: 70000 })).status).toBe(201);
    const none = await refund(p.id);
    expect(none.status).toBe(422);
    expect(none.body.meta.message).toContain('nothing left to refund');

    const pending = await createPayment(t, app.TEST, { amountMinor: 5000, customerReference: 'x' });
    const notYet = await refund(pending.id);
    expect(notYet.status).toBe(409);
    expect(notYet.body.meta.errorCode).toBe('INVALID_STATE');
    const other = await createApp(t);
    for (const creds of [app.LIVE, other.TEST])
      expect((await refund(p.id, {}, creds)).status).toBe(404);
    expect((await refund(p.id, { amountMinor: 0 })).status).toBe(400);
    expect((await refund(p.id, { amountMinor: 1.5 })).status).toBe(400);
  });

  it('20 racing refunds whose sum exceeds the capture never refund more than it', async () => {
    const p = await captured(100000);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => refund(p.id, { amountMinor: 7000 })),
    );
    const ok = results.filter((r) => r.status === 201);
    expect(ok).toHaveLength(14); // 14 x 7,000 = 98,000; a 15th would pass 100,000
    expect(results.filter((r) => r.status === 422)).toHaveLength(6);
    const rows = await t.db.query(
      `SELECT sum(amount_minor)::bigint AS total, count(*)::int AS n FROM refunds WHERE payment_id = $1 AND status <> 'FAILED'`,
      [p.id],
    );
    expect(rows.rows[0]).toEqual({ total: 98000, n: 14 });
    expect((await paymentOf(p.id)).amountRefundedMinor).toBe(98000);
  });

  it('replays an idempotent refund instead of refunding twice', async () => {
    const p = await captured(50000);
    const send = () =>
      http()
        .post(`/api/v1/payments/${p.id}/refunds`)
        .set(asApp(app.TEST))
        .set('Idempotency-Key', `refund-${p.id}`)
        .send({ amountMinor: 20000 });
    const first = await send();
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    const n = await t.db.query(`SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1`, [
      p.id,
    ]);
    expect(n.rows[0].n).toBe(1);
  });

  it('approve and reject: 403 without refunds:approve; the PENDING list; 200 with the refund; approving again is 409', async () => {
    const a = await createApp(t);
    const root = bearer(await superAdminToken(t));
    const settings = await http()
      .patch(`/api/v1/admin/apps/${a.id}/settings`)
      .set(root)
      .send({ refundApprovalThresholdMinor: 10000 });
    expect(settings.status).toBe(200);
    const p = await captured(50000, a);
    const big = await refund(p.id, { amountMinor: 20000 }, a.TEST);
    expect(big.status).toBe(201);
    expect(big.body.data).toMatchObject({
      status: 'PENDING',
      approvalRequired: true,
      gatewayRefundId: null,
    });

    const reader = bearer((await adminWith(t, ['invoices:read'])).token);
    for (const action of ['approve', 'reject']) {
      const denied = await http()
        .post(`/api/v1/admin/refunds/${big.body.data.id}/${action}`)
        .set(reader);
      expect(denied.status).toBe(403);
      expect(denied.body.meta.errorCode).toBe('PERMISSION_DENIED');
    }
    const listed = await http()
      .get(`/api/v1/admin/refunds?status=PENDING&applicationId=${a.id}`)
      .set(reader);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((r: { id: number }) => r.id)).toEqual([big.body.data.id]);

    const approver = bearer((await adminWith(t, ['refunds:approve'])).token);
    const approved = await http()
      .post(`/api/v1/admin/refunds/${big.body.data.id}/approve`)
      .set(approver);
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ id: big.body.data.id, status: 'SUCCEEDED' });
    const again = await http()
      .post(`/api/v1/admin/refunds/${big.body.data.id}/approve`)
      .set(approver);
    expect(again.status).toBe(409);
    expect(again.body.meta.errorCode).toBe('INVALID_STATE');

    const second = await refund(p.id, { amountMinor: 15000 }, a.TEST);
    const rejected = await http()
      .post(`/api/v1/admin/refunds/${second.body.data.id}/reject`)
      .set(approver);
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toMatchObject({
      id: second.body.data.id,
      status: 'FAILED',
      failureReason: 'Rejected by an operator',
    });
  });
});
