import { WebhookFanout } from '../../src/webhooks/delivery/webhook-fanout';
import { asApp, bearer, createApp, superAdminToken } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { createEndpoint, recordEvent } from '../support/webhooks';

/** Re-sends are bounded: 10 per endpoint per minute, any route; 429 with Retry-After beyond. */
describe('webhook re-send limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('the 11th re-send within a minute is 429 (app and operator routes count together); a minute later it works', async () => {
    const app = await createApp(t);
    const endpoint = await createEndpoint(t, app.TEST, { url: 'http://127.0.0.1:9/hook' });
    await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'invoice.paid', { invoice_id: 1 });
    await t.app.get(WebhookFanout).fanOutBatch();
    const delivery = (
      await t.db.query('SELECT id FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint.id])
    ).rows[0].id as number;
    const root = await superAdminToken(t);
    const viaApp = () =>
      t
        .http()
        .post(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery}/resend`)
        .set(asApp(app.TEST))
        .send();
    const viaOperator = () =>
      t.http().post(`/api/v1/admin/webhook-deliveries/${delivery}/resend`).set(bearer(root)).send();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await (i % 2 ? viaApp() : viaOperator())).status);
    expect(statuses).toEqual(Array(10).fill(200));
    const eleventh = await viaApp();
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.meta.errorCode).toBe('RATE_LIMITED');
    expect(Number(eleventh.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(eleventh.headers['retry-after'])).toBeLessThanOrEqual(60);
    // The operator routes are refused the same way, as their OpenAPI entries say (429 documented).
    const viaOperatorAgain = await viaOperator();
    expect(viaOperatorAgain.status).toBe(429);
    expect(viaOperatorAgain.body.meta.errorCode).toBe('RATE_LIMITED');
    const parked = await t
      .http()
      .post(`/api/v1/admin/webhook-endpoints/${endpoint.id}/resend-parked`)
      .set(bearer(root))
      .send();
    expect(parked.status).toBe(429);
    expect(parked.headers['retry-after']).toBeDefined();
    t.clock.advance(61_000);
    expect((await viaOperator()).status).toBe(200);
    // Operator re-sends are audited (the app's own are not admin actions).
    const audited = await t.db.query(
      `SELECT count(*)::int AS n FROM audit_events WHERE action = 'webhook_delivery.resent' AND target_id = $1`,
      [String(delivery)],
    );
    expect(audited.rows[0].n).toBe(6);
  });
});
