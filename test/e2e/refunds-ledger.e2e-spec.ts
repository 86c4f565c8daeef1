import { SandboxGateway } from '../../src/gateways';
import { RefundsService } from '../../src/refunds';
import { appFixture } from '../support/app-fixture';
import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  superAdminToken,
} from '../support/factories';
import { accountBalances } from '../support/ledger';
import { createPayment, eventsOf, expire, settle } from '../support/payments';
import { TestApp } from '../support/test-app';

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

  it('refunds everything by default: SUCCEEDED at once (sandbox), events, amountRefundedMinor, ledger back to zero', async () => {
    const before = await accountBalances(t.db, app.id);
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
      gatewayRefundId: `sbxr_rfd_${res.body.data.id}`,
      failureReason: null,
      mode: 'TEST',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await paymentOf(p.id)).amountRefundedMinor).toBe(100000);
    const events = (await eventsOf(t, app.id, 'refund.')).filter(
      (e) => e.data.refund_id === res.body.data.id,
    );
    expect(events.map((e) => e.type)).toEqual(['refund.pending', 'refund.succeeded']);
    expect(events[1].data).toMatchObject({
      refund_id: res.body.data.id,
      payment_id: p.id,
      invoice_id: null,
      status: 'succeeded',
      previous_status: 'pending',
      amount_minor: 100000,
      currency: 'BDT',
      customer_reference: `r-${seq}`,
    });
    // Captured and fully refunded: clearing and payable are back where they were.
    expect(await accountBalances(t.db, app.id)).toEqual({
      ...before,
      gateway_clearing: before.gateway_clearing ?? 0,
      merchant_payable: before.merchant_payable ?? 0,
      refunds_pending: 0,
    });
    const got = await http().get(`/api/v1/refunds/${res.body.data.id}`).set(asApp(app.TEST));
    expect(got.body.data.status).toBe('SUCCEEDED');
    const list = await http().get(`/api/v1/payments/${p.id}/refunds`).set(asApp(app.TEST));
    expect(list.body.data.map((r: { id: number }) => r.id)).toEqual([res.body.data.id]);
  });

  it('partial refunds add up to the capture and no further (422); only SUCCEEDED payments (409); other apps and modes see nothing (404)', async () => {
    const p = await captured(100000);
    expect((await refund(p.id, { amountMinor: 30000 })).body.data.status).toBe('SUCCEEDED');
    const over = await refund(p.id, { amountMinor: 70001 });
    expect(over.status).toBe(422);
    expect(over.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
    expect((await refund(p.id, { amountMinor: 70000 })).status).toBe(201);
    const none = await refund(p.id);
    expect(none.status).toBe(422);
    expect(none.body.meta.message).toContain('nothing left to refund');
    expect((await paymentOf(p.id)).amountRefundedMinor).toBe(100000);

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

  it('above the threshold a refund waits for approval: approve needs refunds:approve; reject fails it and releases the reservation', async () => {
    const a = await createApp(t);
    const root = bearer(await superAdminToken(t));
    const settings = await http()
      .patch(`/api/v1/admin/apps/${a.id}/settings`)
      .set(root)
      .send({ refundApprovalThresholdMinor: 10000 });
    expect(settings.status).toBe(200);
    const p = await captured(50000, a);
    const big = await refund(p.id, { amountMinor: 20000 }, a.TEST);
    expect(big.body.data).toMatchObject({
      status: 'PENDING',
      approvalRequired: true,
      gatewayRefundId: null,
    });
    expect(await accountBalances(t.db, a.id)).toMatchObject({ refunds_pending: -20000 });

    const reader = bearer((await adminWith(t, ['invoices:read'])).token);
    const denied = await http()
      .post(`/api/v1/admin/refunds/${big.body.data.id}/approve`)
      .set(reader);
    expect(denied.status).toBe(403);
    const listed = await http()
      .get(`/api/v1/admin/refunds?status=PENDING&applicationId=${a.id}`)
      .set(reader);
    expect(listed.body.data.map((r: { id: number }) => r.id)).toEqual([big.body.data.id]);

    const approver = bearer((await adminWith(t, ['refunds:approve'])).token);
    const approved = await http()
      .post(`/api/v1/admin/refunds/${big.body.data.id}/approve`)
      .set(approver);
    expect(approved.status).toBe(200);
    expect(approved.body.data.status).toBe('SUCCEEDED');
    expect(
      (await http().post(`/api/v1/admin/refunds/${big.body.data.id}/approve`).set(approver)).status,
    ).toBe(409);

    const second = await refund(p.id, { amountMinor: 15000 }, a.TEST);
    const rejected = await http()
      .post(`/api/v1/admin/refunds/${second.body.data.id}/reject`)
      .set(approver);
    expect(rejected.body.data).toMatchObject({
      status: 'FAILED',
      failureReason: 'Rejected by an operator',
    });
    const types = (await eventsOf(t, a.id, 'refund.')).map((e) => [e.type, e.data.refund_id]);
    expect(types).toEqual([
      ['refund.pending', big.body.data.id],
      ['refund.succeeded', big.body.data.id],
      ['refund.pending', second.body.data.id],
      ['refund.failed', second.body.data.id],
    ]);
    // Captured 50,000, refunded 20,000; the rejected 15,000 is released back to the merchant.
    expect(await accountBalances(t.db, a.id)).toEqual({
      gateway_clearing: 30000,
      merchant_payable: -30000,
      refunds_pending: 0,
    });
    // The rejected amount is refundable again.
    expect((await refund(p.id, { amountMinor: 30000 }, a.TEST)).status).toBe(201);
  });

  it('a gateway that answers "processing" leaves the refund PENDING until a later status query settles it', async () => {
    const sandbox = t.app.get(SandboxGateway);
    const p = await captured(40000);
    sandbox.holdRefunds(true);
    try {
      const res = await refund(p.id);
      expect(res.body.data).toMatchObject({
        status: 'PENDING',
        gatewayRefundId: `sbxr_rfd_${res.body.data.id}`,
      });
      const service = t.app.get(RefundsService);
      t.clock.advance(61_000);
      expect(await service.recheckPending()).toBe(0);
      expect(
        (await http().get(`/api/v1/refunds/${res.body.data.id}`).set(asApp(app.TEST))).body.data
          .status,
      ).toBe('PENDING');
      sandbox.holdRefunds(false);
      t.clock.advance(61_000);
      expect(await service.recheckPending()).toBe(1);
      expect(
        (await http().get(`/api/v1/refunds/${res.body.data.id}`).set(asApp(app.TEST))).body.data
          .status,
      ).toBe('SUCCEEDED');
      expect((await paymentOf(p.id)).amountRefundedMinor).toBe(40000);
    } finally {
      sandbox.holdRefunds(false);
    }
  });

  it('a late capture of an expired payment is posted when it is revived, not before', async () => {
    const p = await createPayment(t, app.TEST, { amountMinor: 12345, customerReference: 'late' });
    expect((await expire(t, app.TEST, p.id)).status).toBe(200);
    const posted = () =>
      t.db.query(
        `SELECT count(*)::int AS n FROM ledger_transactions WHERE kind = 'capture' AND source_id = $1`,
        [String(p.id)],
      );
    expect((await posted()).rows[0].n).toBe(0);
    expect((await settle(t, app.TEST, p.id)).status).toBe(200);
    expect((await posted()).rows[0].n).toBe(1);
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
      await expect(t.db.query(sql)).rejects.toThrow(/append-only/);
    }
    // A transaction row without entries, and one whose entries do not balance: refused at insert.
    await expect(
      t.db.query(
        `INSERT INTO ledger_transactions (app_id, mode, kind, source_id, occurred_at) VALUES ($1, 'TEST', 'capture', 'bogus-1', now())`,
        [app.id],
      ),
    ).rejects.toThrow(/does not balance/);
    await expect(
      t.db.query(
        `WITH tx AS (INSERT INTO ledger_transactions (app_id, mode, kind, source_id, occurred_at)
                     VALUES ($1, 'TEST', 'capture', 'bogus-2', now()) RETURNING id)
         INSERT INTO ledger_entries (transaction_id, app_id, mode, account, debit_minor, credit_minor)
         SELECT id, $1, 'TEST', a, d, c FROM tx, (VALUES ('gateway_clearing', 100, 0), ('merchant_payable', 0, 99)) v (a, d, c)`,
        [app.id],
      ),
    ).rejects.toThrow(/does not balance/);
  });

  it('GET /admin/ledger/balances: one row per account for an app and mode, summing to zero', async () => {
    const a = await createApp(t);
    await captured(70000, a);
    const res = await http()
      .get(`/api/v1/admin/ledger/balances?applicationId=${a.id}&mode=TEST`)
      .set(bearer(await superAdminToken(t)));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { account: 'gateway_clearing', debitMinor: 70000, creditMinor: 0, balanceMinor: 70000 },
      { account: 'merchant_payable', debitMinor: 0, creditMinor: 70000, balanceMinor: -70000 },
      { account: 'refunds_pending', debitMinor: 0, creditMinor: 0, balanceMinor: 0 },
      { account: 'gateway_fees', debitMinor: 0, creditMinor: 0, balanceMinor: 0 },
      { account: 'bank', debitMinor: 0, creditMinor: 0, balanceMinor: 0 },
    ]);
    const live = await http()
      .get(`/api/v1/admin/ledger/balances?applicationId=${a.id}&mode=LIVE`)
      .set(bearer(await superAdminToken(t)));
    expect(live.body.data.every((r: { balanceMinor: number }) => r.balanceMinor === 0)).toBe(true);
  });
});
