import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  superAdminToken,
} from '../support/factories';
import { expectBalancedLedger } from '../support/ledger';
import { holdLock, untilWaiting } from '../support/locks';
import { captureNoRefund, NO_REFUND, NoRefundGatewayModule } from '../support/no-refund-gateway';
import { createPayment } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';
import { verifyV1, verifyV2, WebhookReceiver } from '../support/webhook-receiver';
import { createEndpoint, workersOf } from '../support/webhooks';

/**
 * The HTTP contract of manual refunds (decisions section 22): a refund on a
 * gateway with no refund call (the test gateway `norefund`, standing for
 * Nagad) answers PENDING with `manual: true`; `POST
 * /api/v1/admin/refunds/{id}/complete` (refunds:approve, app-scoped admins
 * within their apps) marks it SUCCEEDED: its 401/403/404/409s, the race of
 * two completions, the audit row, the ledger rows and the signed
 * `refund.succeeded` webhook. The rules on the services are in
 * test/medium/manual-refunds.medium-spec.ts.
 */
describe('manual refunds (HTTP)', () => {
  let t: TestApp;
  let app: CreatedApp;
  let root: string;
  let receiver: WebhookReceiver;
  let secret: string;
  let seq = 0;
  beforeAll(async () => {
    t = await createTestApp({
      imports: [NoRefundGatewayModule],
      config: { webhookPollIntervalMs: 100 },
    });
    await workersOf(t).start();
    receiver = await WebhookReceiver.start();
    app = await createApp(t);
    root = await superAdminToken(t);
    secret = (
      await createEndpoint(t, app.TEST, { url: receiver.url(), events: ['refund.succeeded'] })
    ).secret;
  });
  afterEach(() => expectBalancedLedger(t.db));
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  /** A refund of a captured `norefund` payment, as the app asks for it. */
  async function manualRefund(amountMinor = 30_000, a = app): Promise<Record<string, any>> {
    const p = await createPayment(t, a.TEST, {
      amountMinor: 100_000,
      customerReference: `mr-${++seq}`,
      gateway: NO_REFUND,
    });
    await captureNoRefund(t.app, t.db, p.id);
    const res = await t
      .http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(a.TEST))
      .send({ amountMinor });
    expect(res.status).toBe(201);
    return res.body.data;
  }
  const complete = (id: number, auth: Record<string, string>, body?: Record<string, unknown>) => {
    const req = t.http().post(`/api/v1/admin/refunds/${id}/complete`).set(auth);
    return body === undefined ? req.send() : req.send(body);
  };
  const ledgerKinds = async (refundId: number) =>
    (
      await t.db.query(
        `SELECT kind FROM ledger_transactions WHERE source_id = $1 AND kind LIKE 'refund_%' ORDER BY id`,
        [String(refundId)],
      )
    ).rows.map((r) => r.kind as string);

  it('the app opens it: 201 PENDING with manual: true; GET shows the same; a check now is 409 saying it is manual', async () => {
    const r = await manualRefund();
    expect(r).toMatchObject({ status: 'PENDING', manual: true, gatewayRefundId: null });
    const got = await t.http().get(`/api/v1/refunds/${r.id}`).set(asApp(app.TEST));
    expect(got.body.data).toMatchObject({ id: r.id, status: 'PENDING', manual: true });
    const check = await t.http().post(`/api/v1/admin/refunds/${r.id}/check`).set(bearer(root));
    expect(check.status).toBe(409);
    expect(check.body.meta.errorCode).toBe('INVALID_STATE');
    expect(check.body.meta.message).toContain('This refund is manual');
    expect(check.body.meta.message).toContain(`/api/v1/admin/refunds/${r.id}/complete`);
  });

  it('completed by an admin with refunds:approve: 200 SUCCEEDED, the reference trimmed, audited, ledger posted, refund.succeeded delivered signed', async () => {
    const r = await manualRefund(25_000);
    const admin = await adminWith(t, ['refunds:approve']);
    const before = receiver.received.length;
    const res = await complete(r.id, bearer(admin.token), {
      gatewayRefundId: '  NGD-7781  ',
      note: 'paid back from the merchant account',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: r.id,
      status: 'SUCCEEDED',
      manual: true,
      gatewayRefundId: 'NGD-7781',
      amountMinor: 25_000,
    });
    const payment = await t.http().get(`/api/v1/payments/${r.paymentId}`).set(asApp(app.TEST));
    expect(payment.body.data.amountRefundedMinor).toBe(25_000);
    expect(await ledgerKinds(r.id)).toEqual(['refund_reserved', 'refund_succeeded']);
    const audit = await t.db.query(
      `SELECT actor_user_id, actor_email, action, after FROM audit_events
        WHERE target_type = 'refund' AND target_id = $1`,
      [String(r.id)],
    );
    expect(audit.rows).toEqual([
      {
        actor_user_id: admin.id,
        actor_email: admin.email,
        action: 'refund.completed',
        after: {
          amountMinor: 25_000,
          paymentId: r.paymentId,
          gatewayRefundId: 'NGD-7781',
          note: 'paid back from the merchant account',
        },
      },
    ]);
    const delivered = (await receiver.waitFor(before + 1))[before];
    expect(delivered.headers['x-webhook-event']).toBe('refund.succeeded');
    expect(verifyV1(secret, delivered.raw, delivered.headers['x-webhook-signature'])).toBe(true);
    expect(
      verifyV2(
        secret,
        delivered.raw,
        delivered.headers['x-webhook-signature-v2'],
        Math.floor(t.clock.nowMs() / 1000),
      ),
    ).toBe(true);
    const body = JSON.parse(delivered.raw.toString('utf8'));
    expect(body).toMatchObject({ type: 'refund.succeeded', mode: 'TEST', app_id: app.id });
    expect(body.data).toMatchObject({
      refund_id: r.id,
      payment_id: r.paymentId,
      status: 'succeeded',
      previous_status: 'pending',
      amount_minor: 25_000,
      gateway_refund_id: 'NGD-7781',
    });
  });

  it('the body is optional; a bad one is 400 naming the field', async () => {
    const r = await manualRefund();
    for (const [body, field] of [
      [{ gatewayRefundId: 'x'.repeat(65) }, 'gatewayRefundId'],
      [{ gatewayRefundId: '   ' }, 'gatewayRefundId'],
      [{ note: 'n'.repeat(501) }, 'note'],
      [{ gatewayRefundId: 42 }, 'gatewayRefundId'],
      [{ other: true }, 'other'],
    ] as const) {
      const res = await complete(r.id, bearer(root), body);
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const res = await complete(r.id, bearer(root));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'SUCCEEDED', gatewayRefundId: null });
  });

  it('401 without a session, 403 without refunds:approve (even with every other permission), nothing changed', async () => {
    const r = await manualRefund();
    const anon = await complete(r.id, {});
    expect(anon.status).toBe(401);
    expect(anon.body.meta.errorCode).toBe('AUTHENTICATION_REQUIRED');
    const reader = await adminWith(t, ['invoices:read', 'invoices:write', 'apps:write']);
    const denied = await complete(r.id, bearer(reader.token));
    expect(denied.status).toBe(403);
    expect(denied.body.meta.errorCode).toBe('PERMISSION_DENIED');
    expect(denied.body.meta.message).toContain('refunds:approve');
    expect((await t.db.query(`SELECT status FROM refunds WHERE id = $1`, [r.id])).rows).toEqual([
      { status: 'PENDING' },
    ]);
  });

  it('an admin scoped to another app: 404 RESOURCE_NOT_FOUND (as approve and reject); within its app: 200', async () => {
    const other = await createApp(t);
    const r = await manualRefund(10_000, other);
    const outsider = await adminWith(t, ['refunds:approve'], { appIds: [app.id] });
    const res = await complete(r.id, bearer(outsider.token));
    expect(res.status).toBe(404);
    expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    expect(await ledgerKinds(r.id)).toEqual(['refund_reserved']);
    const insider = await adminWith(t, ['refunds:approve'], { appIds: [other.id] });
    expect((await complete(r.id, bearer(insider.token))).status).toBe(200);
  });

  it('409 INVALID_STATE for a refund that is not a PENDING manual one; 404 for none', async () => {
    const r = await manualRefund();
    expect((await complete(r.id, bearer(root))).status).toBe(200);
    const again = await complete(r.id, bearer(root));
    expect(again.status).toBe(409);
    expect(again.body.meta.errorCode).toBe('INVALID_STATE');
    expect(again.body.meta.message).toContain('only a PENDING manual refund can be completed');
    // A sandbox refund is the gateway's to decide.
    const p = await createPayment(t, app.TEST, { amountMinor: 20_000, customerReference: 'sbx' });
    await t
      .http()
      .post(`/api/v1/test-helpers/payments/${p.id}/settle`)
      .set(asApp(app.TEST))
      .send({ outcome: 'succeeded' });
    const sbx = await t
      .http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(app.TEST))
      .send({});
    expect(sbx.body.data).toMatchObject({ status: 'SUCCEEDED', manual: false });
    const notManual = await complete(sbx.body.data.id, bearer(root));
    expect(notManual.status).toBe(409);
    expect(notManual.body.meta.errorCode).toBe('INVALID_STATE');
    const none = await complete(987_654_321, bearer(root));
    expect(none.status).toBe(404);
    expect(none.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
  });

  it('two completions at once: exactly one 200, the other 409; one ledger posting, one event', async () => {
    const r = await manualRefund(40_000);
    // Both arrive while another session holds the refund's row: they meet at it, whatever the timing.
    const held = await holdLock(t, 'SELECT id FROM refunds WHERE id = $1 FOR UPDATE', [r.id]);
    const both = Promise.all([
      complete(r.id, bearer(root), { gatewayRefundId: 'first' }).then((res) => res),
      complete(r.id, bearer(root), { gatewayRefundId: 'second' }).then((res) => res),
    ]);
    try {
      await untilWaiting(t, 2, both);
    } finally {
      await held.release();
    }
    const [a, b] = await both;
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((a.status === 409 ? a : b).body.meta.errorCode).toBe('INVALID_STATE');
    expect(await ledgerKinds(r.id)).toEqual(['refund_reserved', 'refund_succeeded']);
    const events = await t.db.query(
      `SELECT type FROM events WHERE app_id = $1 AND type LIKE 'refund.%' AND (data->>'refund_id')::bigint = $2 ORDER BY id`,
      [app.id, r.id],
    );
    expect(events.rows.map((e) => e.type)).toEqual(['refund.pending', 'refund.succeeded']);
    const audit = await t.db.query(
      `SELECT count(*)::int AS n FROM audit_events WHERE action = 'refund.completed' AND target_id = $1`,
      [String(r.id)],
    );
    expect(audit.rows[0].n).toBe(1);
  });

  it('the lists and the CSV export carry manual', async () => {
    const r = await manualRefund(5_000);
    const list = await t
      .http()
      .get(`/api/v1/admin/refunds?applicationId=${app.id}&mode=TEST&status=PENDING`)
      .set(bearer(root));
    expect(list.body.data.find((x: { id: number }) => x.id === r.id)).toMatchObject({
      manual: true,
    });
    const csv = await t
      .http()
      .get(`/api/v1/refunds?status=PENDING`)
      .set({ ...asApp(app.TEST), Accept: 'text/csv' });
    expect(csv.status).toBe(200);
    const [header, ...lines] = csv.text.trim().split('\n');
    const columns = header.replace(/^\uFEFF/, '').split(',');
    const line = lines.find((l) => l.startsWith(`${r.id},`))!.split(',');
    expect(line[columns.indexOf('manual')]).toBe('true');
    expect(line[columns.indexOf('gateway')]).toBe(NO_REFUND);
  });
});
