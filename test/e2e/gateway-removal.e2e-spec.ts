import { RefundsService } from '../../src/refunds';
import { BkashFake } from '../support/bkash-fake';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { bkashPays, setGateway } from '../support/gateways';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Removing an app's gateway credentials while the gateway has work in flight
 * for it (decisions section 19): 409 INVALID_STATE naming how many payments
 * and refunds, nothing removed and nothing audited; replacing the
 * credentials stays allowed and the work goes on with the new ones.
 */
describe('removing gateway credentials with work in flight', () => {
  let bkash: BkashFake;
  let t: TestApp;
  let root: Record<string, string>;

  beforeAll(async () => {
    bkash = await new BkashFake().start();
    t = await createTestApp({
      config: { bkashSandboxUrl: bkash.baseUrl, gatewayTimeoutMs: 1000, jwtTtlMinutes: 600 },
    });
    root = bearer(await superAdminToken(t));
  });
  afterEach(() => {
    bkash.unhang();
    bkash.refundsProcessing = false;
  });
  afterAll(async () => {
    await t.close();
    await bkash.stop();
  });

  const http = () => t.http();
  const bkashApp = async () => {
    const a = await createApp(t);
    expect((await setGateway(t, a.id, 'bkash', 'TEST', bkash.app)).status).toBe(200);
    return a;
  };
  const pay = async (a: CreatedApp, amountMinor: number) => {
    const res = await http()
      .post('/api/v1/payments')
      .set(asApp(a.TEST))
      .send({ amountMinor, gateway: 'bkash', customerReference: 'removal' });
    expect(res.status).toBe(201);
    return res.body.data as { id: number; status: string; checkoutUrl: string };
  };
  const remove = (a: CreatedApp, mode = 'TEST') =>
    http().delete(`/api/v1/admin/apps/${a.id}/gateways/bkash?mode=${mode}`).set(root);
  const bkashSetup = async (a: CreatedApp) => {
    const res = await http().get(`/api/v1/admin/apps/${a.id}/gateways`).set(root);
    expect(res.status).toBe(200);
    return (res.body.data as Record<string, unknown>[]).find(
      (g) => g.mode === 'TEST' && g.gateway === 'bkash',
    )!;
  };
  const removals = async (a: CreatedApp) =>
    (
      await t.db.query(
        `SELECT id FROM audit_events WHERE target_id = $1 AND action = 'app.gateway_credentials_removed'`,
        [String(a.id)],
      )
    ).rows.length;
  const credentialRows = async (a: CreatedApp) =>
    (
      await t.db.query(
        // Rows holding credentials (a removed setup keeps its diagnostics, sealed NULL).
        `SELECT gateway FROM gateway_credentials
          WHERE app_id = $1 AND mode = 'TEST' AND gateway = 'bkash' AND sealed IS NOT NULL`,
        [a.id],
      )
    ).rows.length;
  const eventCount = async (a: CreatedApp) =>
    Number(
      (await t.db.query(`SELECT count(*)::int AS n FROM events WHERE app_id = $1`, [a.id])).rows[0]
        .n,
    );

  it('a PENDING bKash payment: DELETE is 409 naming both counts, nothing removed or audited; PATCH replaces the credentials and the payment completes with them', async () => {
    const a = await bkashApp();
    const p = await pay(a, 5000);
    expect(p.status).toBe('PENDING');
    const eventsBefore = await eventCount(a);

    const refused = await remove(a);
    expect(refused.status).toBe(409);
    expect(refused.body.data).toBeNull();
    expect(refused.body.meta.errorCode).toBe('INVALID_STATE');
    expect(refused.body.meta.message).toBe(
      'The bkash gateway has work in flight for this app in TEST mode: 1 pending payment and 0 pending refunds; wait for them to finish (or replace the credentials with PATCH instead of removing them)',
    );
    expect(await credentialRows(a)).toBe(1);
    expect(await bkashSetup(a)).toMatchObject({
      configured: true,
      last4: bkash.app.appKey.slice(-4),
    });
    expect(await removals(a)).toBe(0);
    // The event is internal: no webhook event, no row in the outbox.
    expect(await eventCount(a)).toBe(eventsBefore);

    // The merchant's key is rotated at bKash: the old one no longer works there.
    const rotated = {
      ...bkash.app,
      appKey: 'rotated-app-key-4321',
      appSecret: 'rotated-app-secret',
      password: 'rotated-password',
    };
    Object.assign(bkash.app, rotated);
    const replaced = await setGateway(t, a.id, 'bkash', 'TEST', rotated);
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ gateway: 'bkash', configuredGateways: ['bkash'] });
    expect(await bkashSetup(a)).toMatchObject({ configured: true, last4: '4321' });

    await bkashPays(t, bkash, p.checkoutUrl);
    const done = await http().get(`/api/v1/payments/${p.id}`).set(asApp(a.TEST));
    expect(done.body.data.status).toBe('SUCCEEDED');

    // Nothing in flight any more: the removal goes through, audited.
    const removed = await remove(a);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({
      applicationId: a.id,
      mode: 'TEST',
      gateway: 'bkash',
      deleted: true,
    });
    expect(await credentialRows(a)).toBe(0);
    expect(await bkashSetup(a)).toMatchObject({ configured: false, last4: null });
    expect(await removals(a)).toBe(1);
  });

  it('a PENDING refund alone blocks the removal too; once it is decided DELETE is 200', async () => {
    const a = await bkashApp();
    const p = await pay(a, 8000);
    await bkashPays(t, bkash, p.checkoutUrl);
    bkash.refundsProcessing = true;
    const r = await http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(a.TEST))
      .send({ amountMinor: 3000, reason: 'customer asked' });
    expect(r.status).toBe(201);
    expect(r.body.data.status).toBe('PENDING');

    const refused = await remove(a);
    expect(refused.status).toBe(409);
    expect(refused.body.meta.errorCode).toBe('INVALID_STATE');
    expect(refused.body.meta.message).toContain('0 pending payments and 1 pending refund;');
    expect(await credentialRows(a)).toBe(1);
    expect(await removals(a)).toBe(0);
    // The other mode has nothing set: 404 as before, whatever TEST has in flight.
    expect((await remove(a, 'LIVE')).status).toBe(404);

    bkash.refundsProcessing = false;
    t.clock.advance(61_000);
    await t.app.get(RefundsService).recheckPending();
    const row = (await t.db.query(`SELECT status FROM refunds WHERE id = $1`, [r.body.data.id]))
      .rows[0];
    expect(row.status).toBe('SUCCEEDED');

    expect((await remove(a)).status).toBe(200);
    expect(await credentialRows(a)).toBe(0);
    expect(await removals(a)).toBe(1);
  });

  it("another app's or another gateway's work in flight does not block", async () => {
    const busy = await bkashApp();
    await pay(busy, 4000);
    const idle = await bkashApp();
    // The sandbox serves TEST too; its payment is not bKash's work.
    const sandboxPayment = await http()
      .post('/api/v1/payments')
      .set(asApp(idle.TEST))
      .send({ amountMinor: 4000, gateway: 'sandbox', customerReference: 'removal' });
    expect(sandboxPayment.status).toBe(201);
    expect(sandboxPayment.body.data.status).toBe('PENDING');
    expect((await remove(idle)).status).toBe(200);
    expect((await remove(busy)).status).toBe(409);
  });
});
