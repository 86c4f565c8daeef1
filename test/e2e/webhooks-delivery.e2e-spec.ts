import { TransactionHost } from '@nestjs-cls/transactional';

import { Metrics } from '../../src/common/metrics/metrics';
import { RETRY_DELAYS_MS } from '../../src/webhooks/delivery/retry-schedule';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { verifyV1, verifyV2, WebhookReceiver } from '../support/webhook-receiver';
import {
  createEndpoint,
  deliveriesOfEvent,
  deliveryRow,
  eventually,
  recordEvent,
  recordSyntheticEvent,
  workersOf,
} from '../support/webhooks';

const ENVELOPE_KEYS = ['id', 'type', 'created_at', 'mode', 'app_id', 'schema_version', 'data'];

describe('webhooks: delivery to real receivers', () => {
  let t: TestApp;
  let app: CreatedApp;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };
  const test = () => ({ appId: app.id, mode: 'TEST' as const });

  beforeAll(async () => {
    t = await createTestApp({ config: { webhookTimeoutMs: 4000, webhookPollIntervalMs: 100 } });
    await workersOf(t).start();
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });
  beforeEach(async () => {
    app = await createApp(t);
  });
  // Tests that move business time put it back, so admin sessions of later tests stay valid.
  afterEach(() => t.clock.reset());

  it('sends the five headers, both signatures over the raw bytes, the envelope in order, one id per endpoint', async () => {
    const [a, b] = [await receiver(), await receiver()];
    const ea = await createEndpoint(t, app.TEST, { url: a.url() });
    const eb = await createEndpoint(t, app.TEST, { url: b.url() });
    const eventId = await recordEvent(t, test(), 'payment.succeeded', {
      payment_id: 42,
      previous_status: 'pending',
      amount_minor: 150000,
    });

    const [ra] = await a.waitFor(1);
    const [rb] = await b.waitFor(1);
    const nowSeconds = Math.floor(t.clock.nowMs() / 1000);
    for (const [r, secret] of [
      [ra, ea.secret],
      [rb, eb.secret],
    ] as const) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-webhook-event']).toBe('payment.succeeded');
      expect(verifyV1(secret, r.raw, r.headers['x-webhook-signature'])).toBe(true);
      expect(verifyV2(secret, r.raw, r.headers['x-webhook-signature-v2'], nowSeconds)).toBe(true);
      const ts = Number(r.headers['x-webhook-timestamp']);
      expect(r.headers['x-webhook-signature-v2']).toMatch(new RegExp(`^t=${ts},v1=[0-9a-f]{64}$`));
      expect(Math.abs(ts - nowSeconds)).toBeLessThanOrEqual(5);
      const body = JSON.parse(r.raw.toString('utf8'));
      expect(Object.keys(body)).toEqual(ENVELOPE_KEYS);
      expect(body).toMatchObject({
        type: 'payment.succeeded',
        mode: 'TEST',
        app_id: app.id,
        schema_version: 1,
      });
      expect(body.data).toEqual({
        payment_id: 42,
        previous_status: 'pending',
        amount_minor: 150000,
        status: 'succeeded',
      });
      expect(String(body.id)).toBe(r.headers['x-webhook-id']);
      expect(new Date(body.created_at).toISOString()).toBe(body.created_at);
    }
    // Each endpoint's secret verifies only its own deliveries.
    expect(verifyV1(eb.secret, ra.raw, ra.headers['x-webhook-signature'])).toBe(false);
    expect(ra.id).not.toBe(rb.id);

    const rows = await deliveriesOfEvent(t, eventId);
    expect(rows.map((d) => d.id).sort()).toEqual([ra.id, rb.id].sort());
    for (const row of rows) {
      const got = row.id === ra.id ? ra : rb;
      expect(Buffer.from(row.body, 'utf8').equals(got.raw)).toBe(true);
    }
    await eventually(
      async () => (await deliveriesOfEvent(t, eventId)).every((d) => d.status === 'DELIVERED'),
      5000,
      'DELIVERED',
    );
    const attempts = await t.db.query(
      'SELECT status_code, duration_ms, error FROM webhook_delivery_attempts WHERE delivery_id = ANY($1)',
      [rows.map((r) => r.id)],
    );
    expect(attempts.rows).toHaveLength(2);
    for (const at of attempts.rows) expect(at).toMatchObject({ status_code: 200, error: null });
    // (/metrics is on its own listener, off in tests: read the registry it serves.)
    const metrics = { text: await t.app.get(Metrics).registry.metrics() };
    expect(metrics.text).toMatch(/^joma_webhook_attempts_total\{outcome="DELIVERED"\} [1-9]\d*$/m);
    // Recorded -> first attempt, once per delivery; and both pools' connections.
    expect(metrics.text).toMatch(/^joma_webhook_first_attempt_delay_seconds_count [1-9]\d*$/m);
    expect(metrics.text).toMatch(
      /^joma_db_pool_connections\{pool="api",state="total"\} [1-9]\d*$/m,
    );
    expect(metrics.text).toMatch(
      /^joma_db_pool_connections\{pool="workers",state="total"\} [1-9]\d*$/m,
    );
    expect(metrics.text).toMatch(/^joma_db_pool_connections\{pool="api",state="waiting"\} 0$/m);
  });

  it('retries a 500-answering endpoint on the schedule and parks it, while its sibling is delivered', async () => {
    const failing = await receiver();
    failing.respondWith(() => ({ status: 500, body: 'x'.repeat(3000) }));
    const healthy = await receiver();
    const ef = await createEndpoint(t, app.TEST, { url: failing.url() });
    await createEndpoint(t, app.TEST, { url: healthy.url() });
    const eventId = await recordEvent(t, test(), 'invoice.paid', { invoice_id: 7 });

    await healthy.waitFor(1);
    await failing.waitFor(1);
    const deliveryId = failing.received[0].id;
    for (let n = 1; n <= RETRY_DELAYS_MS.length; n++) {
      const row = await eventually(
        async () => {
          const r = await deliveryRow(t, deliveryId);
          return r.attempts === n && r.locked_by === null ? r : null;
        },
        5000,
        `attempt ${n} recorded`,
      );
      expect(row.status).toBe('RETRYING');
      expect(row.last_status_code).toBe(500);
      expect(row.last_error).toBe('HTTP_500');
      const gap = row.next_attempt_at!.getTime() - row.last_attempt_at!.getTime();
      expect(gap).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[n - 1] * 0.8 - 50);
      expect(gap).toBeLessThanOrEqual(RETRY_DELAYS_MS[n - 1] * 1.2 + 50);
      // Not attempted before it is due.
      expect(failing.received).toHaveLength(n);
      t.clock.advance(row.next_attempt_at!.getTime() - t.clock.nowMs() + 10);
      workersOf(t).wake();
      await failing.waitFor(n + 1);
    }
    const parked = await eventually(
      async () => {
        const r = await deliveryRow(t, deliveryId);
        return r.status === 'PARKED' ? r : null;
      },
      5000,
      'PARKED',
    );
    expect(parked).toMatchObject({ attempts: 9, next_attempt_at: null, last_error: 'HTTP_500' });
    expect(failing.received).toHaveLength(9);
    // Same id and bytes on every attempt, a fresh timestamp each time.
    expect(new Set(failing.ids())).toEqual(new Set([deliveryId]));
    expect(failing.received.every((r) => r.raw.equals(failing.received[0].raw))).toBe(true);
    expect(new Set(failing.received.map((r) => r.headers['x-webhook-timestamp'])).size).toBe(9);
    const log = await t.db.query(
      'SELECT attempt_number, status_code, response_excerpt FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY id',
      [deliveryId],
    );
    expect(log.rows.map((r) => r.attempt_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(log.rows[0].response_excerpt).toBe('x'.repeat(1024));

    const sibling = (await deliveriesOfEvent(t, eventId)).find((d) => d.endpoint_id !== ef.id)!;
    expect(sibling).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    expect(healthy.received).toHaveLength(1);

    // Parked stays parked however much time passes.
    t.clock.advance(24 * 3600_000);
    workersOf(t).wake();
    await new Promise((ok) => setTimeout(ok, 300));
    expect(failing.received).toHaveLength(9);

    // The app re-sends it once the consumer is fixed: same id and body, fresh signature.
    failing.respondWith(() => 204);
    const resend = await t
      .http()
      .post(`/api/v1/webhook-endpoints/${ef.id}/deliveries/${deliveryId}/resend`)
      .set(asApp(app.TEST));
    expect(resend.status).toBe(200);
    expect(resend.body.data).toMatchObject({ id: deliveryId, status: 'PENDING' });
    const [, , , , , , , , , again] = await failing.waitFor(10);
    expect(again.id).toBe(deliveryId);
    expect(again.raw.equals(failing.received[0].raw)).toBe(true);
    expect(verifyV1(ef.secret, again.raw, again.headers['x-webhook-signature'])).toBe(true);
    expect(
      verifyV2(
        ef.secret,
        again.raw,
        again.headers['x-webhook-signature-v2'],
        Math.floor(t.clock.nowMs() / 1000),
      ),
    ).toBe(true);
    await eventually(
      async () => (await deliveryRow(t, deliveryId)).status === 'DELIVERED',
      5000,
      'DELIVERED after re-send',
    );
  });

  it('a hanging endpoint does not hold back its sibling', async () => {
    const hanging = await receiver();
    hanging.respondWith(() => 'hang');
    const healthy = await receiver();
    const eh = await createEndpoint(t, app.TEST, { url: hanging.url() });
    await createEndpoint(t, app.TEST, { url: healthy.url() });
    const n = 8;
    for (let i = 0; i < n; i++) await recordEvent(t, test(), 'payment.failed', { payment_id: i });

    await healthy.waitFor(n);
    await hanging.waitFor(1);
    // Every sibling delivery arrived while the hanging endpoint's first requests were still unanswered.
    const attemptsOfHanging = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE endpoint_id = $1',
      [eh.id],
    );
    expect(attemptsOfHanging.rows[0].n).toBe(0);
    // ... and the hanging one is bounded per endpoint, then times out and is scheduled for retry.
    expect(hanging.received.length).toBeLessThanOrEqual(4);
    const timedOut = await eventually(
      async () => {
        const r = await t.db.query(
          'SELECT error FROM webhook_delivery_attempts WHERE endpoint_id = $1',
          [eh.id],
        );
        return r.rows.length > 0 ? r.rows : null;
      },
      10_000,
      'timeout recorded',
    );
    expect(timedOut[0].error).toMatch(/^TIMEOUT/);
  });

  it('sends nothing to a disabled endpoint and only subscribed types to a filtered one', async () => {
    const disabled = await receiver();
    const filtered = await receiver();
    const all = await receiver();
    const ed = await createEndpoint(t, app.TEST, { url: disabled.url(), enabled: false });
    await createEndpoint(t, app.TEST, {
      url: filtered.url(),
      events: ['invoice.paid', 'refund.failed'],
    });
    await createEndpoint(t, app.TEST, { url: all.url(), events: ['*'] });

    await recordEvent(t, test(), 'payment.succeeded', { payment_id: 1 });
    await recordEvent(t, test(), 'invoice.paid', { invoice_id: 2 });
    await recordEvent(t, test(), 'subscription.entitlements_updated', { subscription_id: 3 });

    await all.waitFor(3);
    await filtered.waitFor(1);
    await eventually(
      async () => {
        const r = await t.db.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE app_id = $1 AND status <> 'DELIVERED'`,
          [app.id],
        );
        return r.rows[0].n === 0;
      },
      5000,
      'all delivered',
    );
    expect(filtered.received.map((r) => r.headers['x-webhook-event'])).toEqual(['invoice.paid']);
    expect(all.received.map((r) => r.headers['x-webhook-event']).sort()).toEqual([
      'invoice.paid',
      'payment.succeeded',
      'subscription.entitlements_updated',
    ]);
    expect(disabled.received).toHaveLength(0);
    const forDisabled = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1',
      [ed.id],
    );
    expect(forDisabled.rows[0].n).toBe(0);
  });

  it('rotation makes the old secret fail at once, even for a delivery already retrying', async () => {
    const r = await receiver();
    r.respondWith((_, i) => (i === 0 ? 503 : 200));
    const e = await createEndpoint(t, app.TEST, { url: r.url() });
    await recordEvent(t, test(), 'refund.succeeded', { refund_id: 5 });
    const [first] = await r.waitFor(1);
    expect(verifyV1(e.secret, first.raw, first.headers['x-webhook-signature'])).toBe(true);
    await eventually(
      async () => (await deliveryRow(t, first.id)).status === 'RETRYING',
      5000,
      'RETRYING',
    );

    const rotated = await t
      .http()
      .post(`/api/v1/webhook-endpoints/${e.id}/rotate-secret`)
      .set(asApp(app.TEST));
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(e.secret);

    t.clock.advance(15_000);
    workersOf(t).wake();
    const [, second] = await r.waitFor(2);
    expect(second.id).toBe(first.id);
    expect(second.raw.equals(first.raw)).toBe(true);
    expect(verifyV1(fresh, second.raw, second.headers['x-webhook-signature'])).toBe(true);
    expect(verifyV1(e.secret, second.raw, second.headers['x-webhook-signature'])).toBe(false);
    expect(
      verifyV2(
        e.secret,
        second.raw,
        second.headers['x-webhook-signature-v2'],
        Math.floor(t.clock.nowMs() / 1000),
      ),
    ).toBe(false);
    expect(
      verifyV2(
        fresh,
        second.raw,
        second.headers['x-webhook-signature-v2'],
        Math.floor(t.clock.nowMs() / 1000),
      ),
    ).toBe(true);
  });

  it('keeps an event of a mode without endpoints as UNDELIVERABLE, and lists events per mode', async () => {
    // A LIVE endpoint does not make TEST events deliverable: endpoints are per mode.
    await createEndpoint(t, app.LIVE, { url: 'https://example.com/hook' });
    const eventId = await recordEvent(t, test(), 'subscription.created', { subscription_id: 9 });
    const [row] = await eventually(
      async () => {
        const rows = await deliveriesOfEvent(t, eventId);
        return rows.length ? rows : null;
      },
      5000,
      'fan-out',
    );
    expect(row).toMatchObject({
      status: 'UNDELIVERABLE',
      endpoint_id: null,
      last_error: 'NO_ENDPOINT_CONFIGURED',
      attempts: 0,
    });

    const res = await t.http().get('/api/v1/events').set(asApp(app.TEST));
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      id: eventId,
      type: 'subscription.created',
      mode: 'TEST',
      applicationId: app.id,
      data: { subscription_id: 9, status: 'created' },
      deliveries: [
        {
          id: row.id,
          endpointId: null,
          status: 'UNDELIVERABLE',
          lastError: 'NO_ENDPOINT_CONFIGURED',
        },
      ],
    });
    expect(res.body.pagination).toMatchObject({
      page: 0,
      size: 20,
      totalElements: 1,
      totalPages: 1,
    });
    const liveList = await t.http().get('/api/v1/events').set(asApp(app.LIVE));
    expect(liveList.body.data).toEqual([]);
  });

  it('never delivers an event whose transaction rolled back', async () => {
    const r = await receiver();
    await createEndpoint(t, app.TEST, { url: r.url() });
    const txHost = t.app.get(TransactionHost);
    await expect(
      txHost.withTransaction(async () => {
        await recordSyntheticEvent(t, test(), 'payment.cancelled', { payment_id: 'rolled-back' });
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    await recordEvent(t, test(), 'payment.cancelled', { payment_id: 'committed' });
    const [got] = await r.waitFor(1);
    expect(JSON.parse(got.raw.toString()).data.payment_id).toBe('committed');
    const all = await t.db.query(`SELECT count(*)::int AS n FROM events WHERE app_id = $1`, [
      app.id,
    ]);
    expect(all.rows[0].n).toBe(1);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const target = await receiver();
    const redirecting = await receiver();
    redirecting.respondWith(() => ({ status: 307, headers: { Location: target.url() } }));
    await createEndpoint(t, app.TEST, { url: redirecting.url() });
    await recordEvent(t, test(), 'payment.expired', { payment_id: 3 });
    const [req] = await redirecting.waitFor(1);
    const row = await eventually(
      async () => {
        const d = await deliveryRow(t, req.id);
        return d.status === 'RETRYING' ? d : null;
      },
      5000,
      'RETRYING',
    );
    expect(row).toMatchObject({ last_status_code: 307, last_error: 'HTTP_307' });
    expect(target.received).toHaveLength(0);
  });
});
