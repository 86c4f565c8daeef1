import type { QueryRunner } from 'typeorm';

import { LegacyWebhookUrlToEndpoints1795330000001 } from '../../migrations/1795330000001-LegacyWebhookUrlToEndpoints';
import { adminWith, asApp, bearer, createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { verifyV1, WebhookReceiver } from '../support/webhook-receiver';
import {
  createEndpoint,
  deliveriesOfEvent,
  deliveryRow,
  eventually,
  recordEvent,
  workersOf,
} from '../support/webhooks';

/** Runs the real legacy-conversion migration against the test database. */
async function convertLegacyUrls(t: TestApp): Promise<void> {
  const runner = {
    query: (sql: string, params?: unknown[]) => t.db.query(sql, params).then((r) => r.rows),
  } as unknown as QueryRunner;
  await new LegacyWebhookUrlToEndpoints1795330000001().up(runner);
}

describe('webhooks: legacy single-URL endpoints and operator tools', () => {
  let t: TestApp;
  let app: CreatedApp;
  let operator: { token: string };
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await createTestApp({ config: { webhookTimeoutMs: 2000, webhookPollIntervalMs: 100 } });
    await workersOf(t).start();
    operator = await adminWith(t, ['webhooks:operate']);
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });
  beforeEach(async () => {
    app = await createApp(t);
  });
  afterEach(() => t.clock.reset());

  it('converts apps.webhook_url into one endpoint per mode; a LIVE http one parks with LIVE_REQUIRES_HTTPS and is never retried', async () => {
    const legacy = await receiver();
    await t.db.query('UPDATE apps SET webhook_url = $2 WHERE id = $1', [
      app.id,
      legacy.url('/legacy'),
    ]);
    await convertLegacyUrls(t);
    await convertLegacyUrls(t); // re-running converts nothing twice
    const endpoints = await t.db.query(
      'SELECT id, mode, url, events, legacy, enabled, secret_ciphertext FROM webhook_endpoints WHERE app_id = $1 ORDER BY mode',
      [app.id],
    ); // enum order: TEST, LIVE
    expect(
      endpoints.rows.map((e) => [
        e.mode,
        e.url,
        e.events,
        e.legacy,
        e.enabled,
        e.secret_ciphertext,
      ]),
    ).toEqual([
      ['TEST', legacy.url('/legacy'), ['*'], true, true, null],
      ['LIVE', legacy.url('/legacy'), ['*'], true, true, null],
    ]);
    const liveEndpoint = endpoints.rows.find((e) => e.mode === 'LIVE')!;

    const eventId = await recordEvent(t, { appId: app.id, mode: 'LIVE' }, 'payment.succeeded', {
      payment_id: 1,
      previous_status: 'pending',
    });
    const parked = await eventually(
      async () => {
        const [d] = await deliveriesOfEvent(t, eventId);
        return d?.status === 'PARKED' ? d : null;
      },
      5000,
      'PARKED',
    );
    expect(parked).toMatchObject({
      endpoint_id: liveEndpoint.id,
      attempts: 1,
      last_error: 'LIVE_REQUIRES_HTTPS',
      next_attempt_at: null,
      last_status_code: null,
    });
    const log = await t.db.query(
      'SELECT error, status_code, signed_timestamp FROM webhook_delivery_attempts WHERE delivery_id = $1',
      [parked.id],
    );
    expect(log.rows).toEqual([
      { error: 'LIVE_REQUIRES_HTTPS', status_code: null, signed_timestamp: null },
    ]);

    // Hours later it has still not been retried and nothing went out over plaintext.
    t.clock.advance(7 * 3600_000);
    workersOf(t).wake();
    await new Promise((ok) => setTimeout(ok, 300));
    expect(await deliveryRow(t, parked.id)).toMatchObject({ status: 'PARKED', attempts: 1 });
    expect(legacy.received).toHaveLength(0);
    t.clock.reset(); // back to now, so admin sessions are valid again

    // The app sees it as a legacy endpoint; an https URL is then required to change it.
    const live = await t
      .http()
      .get(`/api/v1/webhook-endpoints/${liveEndpoint.id}`)
      .set(asApp(app.LIVE));
    expect(live.body.data).toMatchObject({ legacy: true, url: legacy.url('/legacy') });
    const fix = await t
      .http()
      .patch(`/api/v1/webhook-endpoints/${liveEndpoint.id}`)
      .set(asApp(app.LIVE))
      .send({ url: `https://127.0.0.1:${legacy.port}/legacy` });
    expect(fix.status).toBe(200);

    // After the fix an operator re-sends the parked events; they are attempted over TLS now.
    const resent = await t
      .http()
      .post(`/api/v1/admin/webhook-endpoints/${liveEndpoint.id}/resend-parked`)
      .set(bearer(operator.token));
    expect(resent.status).toBe(200);
    expect(resent.body.data).toEqual({ endpointId: liveEndpoint.id, resent: 1 });
    const retried = await eventually(
      async () => {
        const d = await deliveryRow(t, parked.id);
        return d.attempts === 2 && d.locked_by === null ? d : null;
      },
      5000,
      'second attempt',
    );
    // The receiver speaks plain http, so the TLS handshake fails: an ordinary failure, retried, not LIVE_REQUIRES_HTTPS.
    expect(retried.status).toBe('RETRYING');
    expect(retried.last_error).not.toBe('LIVE_REQUIRES_HTTPS');
  });

  it('delivers a legacy TEST endpoint signed with a secret sealed on first use, which rotation reveals', async () => {
    const legacy = await receiver();
    await t.db.query('UPDATE apps SET webhook_url = $2 WHERE id = $1', [
      app.id,
      legacy.url('/old'),
    ]);
    await convertLegacyUrls(t);
    const { rows } = await t.db.query(
      `SELECT id FROM webhook_endpoints WHERE app_id = $1 AND mode = 'TEST'`,
      [app.id],
    );
    await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'invoice.issued', { invoice_id: 1 });
    const [first] = await legacy.waitFor(1);
    expect(first.headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
    const sealed = await t.db.query(
      'SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1',
      [rows[0].id],
    );
    expect(sealed.rows[0].secret_ciphertext).toMatch(/^v1:/);

    const rotated = await t
      .http()
      .post(`/api/v1/webhook-endpoints/${rows[0].id}/rotate-secret`)
      .set(asApp(app.TEST));
    await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'invoice.voided', { invoice_id: 1 });
    const [, second] = await legacy.waitFor(2);
    expect(
      verifyV1(rotated.body.data.secret, second.raw, second.headers['x-webhook-signature']),
    ).toBe(true);
  });

  it('lets operators filter deliveries, read the attempt log and re-send one with the same id and body', async () => {
    const failing = await receiver();
    failing.respondWith(() => ({ status: 502, body: 'bad gateway' }));
    const e = await createEndpoint(t, app.TEST, { url: failing.url() });
    const other = await createApp(t);
    await recordEvent(t, { appId: other.id, mode: 'TEST' }, 'invoice.issued', {});
    const eventId = await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'refund.pending', {
      refund_id: 3,
    });
    const [first] = await failing.waitFor(1);
    await eventually(
      async () => (await deliveryRow(t, first.id)).status === 'RETRYING',
      5000,
      'RETRYING',
    );
    // Park it directly: the schedule itself is covered elsewhere.
    await t.db.query(
      `UPDATE webhook_deliveries SET status = 'PARKED', next_attempt_at = NULL WHERE id = $1`,
      [first.id],
    );

    const list = await t
      .http()
      .get(
        `/api/v1/admin/webhook-deliveries?status=PARKED&applicationId=${app.id}&mode=TEST&endpointId=${e.id}`,
      )
      .set(bearer(operator.token));
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({
        id: first.id,
        eventId,
        endpointId: e.id,
        applicationId: app.id,
        status: 'PARKED',
        attempts: 1,
        lastStatusCode: 502,
        lastError: 'HTTP_502',
      }),
    ]);
    const none = await t
      .http()
      .get(`/api/v1/admin/webhook-deliveries?status=PARKED&applicationId=${app.id}&mode=LIVE`)
      .set(bearer(operator.token));
    expect(none.body.data).toEqual([]);

    const detail = await t
      .http()
      .get(`/api/v1/admin/webhook-deliveries/${first.id}`)
      .set(bearer(operator.token));
    expect(detail.body.data.body).toBe(first.raw.toString('utf8'));
    expect(detail.body.data.attemptLog).toEqual([
      expect.objectContaining({
        attemptNumber: 1,
        statusCode: 502,
        responseExcerpt: 'bad gateway',
        error: 'HTTP_502',
        targetAddress: '127.0.0.1',
        durationMs: expect.any(Number),
      }),
    ]);
    const appView = await t
      .http()
      .get(`/api/v1/webhook-endpoints/${e.id}/deliveries?status=PARKED`)
      .set(asApp(app.TEST));
    expect(appView.body.data.map((d: { id: number }) => d.id)).toEqual([first.id]);
    // The app sees the same delivery and its attempt log through its own route.
    const appDetail = await t
      .http()
      .get(`/api/v1/webhook-endpoints/${e.id}/deliveries/${first.id}`)
      .set(asApp(app.TEST));
    expect(appDetail.status).toBe(200);
    expect(appDetail.body.data).toMatchObject({ id: first.id, status: 'PARKED' });
    expect(appDetail.body.data.attemptLog).toHaveLength(1);
    const otherMode = await t
      .http()
      .get(`/api/v1/webhook-endpoints/${e.id}/deliveries/${first.id}`)
      .set(asApp(app.LIVE));
    expect(otherMode.status).toBe(404);

    failing.respondWith(() => 200);
    const resend = await t
      .http()
      .post(`/api/v1/admin/webhook-deliveries/${first.id}/resend`)
      .set(bearer(operator.token));
    expect(resend.status).toBe(200);
    expect(resend.body.data).toMatchObject({ id: first.id, status: 'PENDING' });
    const [, again] = await failing.waitFor(2);
    expect(again.id).toBe(first.id);
    expect(again.raw.equals(first.raw)).toBe(true);
    await eventually(
      async () => (await deliveryRow(t, first.id)).status === 'DELIVERED',
      5000,
      'DELIVERED',
    );
    expect(await deliveryRow(t, first.id)).toMatchObject({
      attempts: 2,
      last_status_code: 200,
      last_error: null,
    });

    // An event without endpoint has nothing to re-send.
    const lonely = await recordEvent(t, { appId: app.id, mode: 'LIVE' }, 'invoice.paid', {});
    const [u] = await eventually(
      async () => {
        const rows = await deliveriesOfEvent(t, lonely);
        return rows.length ? rows : null;
      },
      5000,
      'fan-out',
    );
    const refused = await t
      .http()
      .post(`/api/v1/admin/webhook-deliveries/${u.id}/resend`)
      .set(bearer(operator.token));
    expect(refused.status).toBe(409);
    expect(refused.body.meta.errorCode).toBe('INVALID_STATE');
  });

  it('parks the pending deliveries of a disabled or deleted endpoint instead of sending them', async () => {
    const r = await receiver();
    r.respondWith(() => 500);
    const e = await createEndpoint(t, app.TEST, { url: r.url() });
    await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'payment.failed', {});
    const [first] = await r.waitFor(1);
    await eventually(
      async () => (await deliveryRow(t, first.id)).status === 'RETRYING',
      5000,
      'RETRYING',
    );
    await t
      .http()
      .patch(`/api/v1/webhook-endpoints/${e.id}`)
      .set(asApp(app.TEST))
      .send({ enabled: false });
    t.clock.advance(60_000);
    workersOf(t).wake();
    const parked = await eventually(
      async () => {
        const d = await deliveryRow(t, first.id);
        return d.status === 'PARKED' ? d : null;
      },
      5000,
      'PARKED',
    );
    expect(parked.last_error).toBe('ENDPOINT_DISABLED');
    expect(r.received).toHaveLength(1);
    const resend = await t
      .http()
      .post(`/api/v1/webhook-endpoints/${e.id}/deliveries/${first.id}/resend`)
      .set(asApp(app.TEST));
    expect(resend.status).toBe(409);

    await t.http().delete(`/api/v1/webhook-endpoints/${e.id}`).set(asApp(app.TEST));
    const kept = await t
      .http()
      .get(`/api/v1/admin/webhook-deliveries/${first.id}`)
      .set(bearer(operator.token));
    expect(kept.status).toBe(200);
    const gone = await t
      .http()
      .post(`/api/v1/admin/webhook-endpoints/${e.id}/resend-parked`)
      .set(bearer(operator.token));
    expect(gone.status).toBe(404);
  });
});
