import { createHmac } from 'node:crypto';

import { adminWith, asApp, bearer, createApp, type CreatedApp } from '../support/factories';
import { createTestApp, type TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createEndpoint, workersOf } from '../support/webhooks';

/** POST /webhook-endpoints/{id}/test: one signed event to that endpoint alone (the dashboard's "Send test event"). */
describe('webhook test events', () => {
  let t: TestApp;
  let app: CreatedApp;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await createTestApp({ config: { webhookTimeoutMs: 4000, webhookPollIntervalMs: 100 } });
    await workersOf(t).start();
    app = await createApp(t);
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });
  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };
  const sendTest = (id: number, auth = asApp(app.TEST)) =>
    t.http().post(`/api/v1/webhook-endpoints/${id}/test`).set(auth);

  it('reaches the named endpoint only, signed like any event', async () => {
    const [a, b] = [await receiver(), await receiver()];
    const ea = await createEndpoint(t, app.TEST, { url: a.url() });
    await createEndpoint(t, app.TEST, { url: b.url(), events: ['*'] });
    const res = await sendTest(ea.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      endpointId: ea.id,
      eventId: expect.any(Number),
      type: 'webhook_endpoint.test',
    });
    const [got] = await a.waitFor(1);
    expect(got.headers['x-webhook-event']).toBe('webhook_endpoint.test');
    const body = JSON.parse(got.raw.toString('utf8'));
    expect(body.type).toBe('webhook_endpoint.test');
    expect(body.data.endpoint_id).toBe(ea.id);
    // The v2 signature: "t=<unix>,v1=<hex>" over "<t>." + the raw body, with the endpoint's secret.
    const v2 = String(got.headers['x-webhook-signature-v2']);
    const ts = /t=(\d+)/.exec(v2)![1];
    const expected = createHmac('sha256', ea.secret).update(`${ts}.`).update(got.raw).digest('hex');
    expect(v2).toBe(`t=${ts},v1=${expected}`);
    const rows = await t.db.query(
      'SELECT endpoint_id FROM webhook_deliveries WHERE event_id = $1',
      [res.body.data.eventId],
    );
    expect(rows.rows).toEqual([{ endpoint_id: ea.id }]);
    expect(b.received).toHaveLength(0);
  });

  it('a disabled endpoint is 409; another app or mode is 404', async () => {
    const r = await receiver();
    const off = await createEndpoint(t, app.TEST, { url: r.url(), enabled: false });
    const refused = await sendTest(off.id);
    expect(refused.status).toBe(409);
    expect(refused.body.meta.errorCode).toBe('INVALID_STATE');
    const other = await createApp(t);
    expect((await sendTest(off.id, asApp(other.TEST))).status).toBe(404);
    expect((await sendTest(off.id, asApp(app.LIVE))).status).toBe(404);
    const events = await t.db.query(
      `SELECT count(*)::int AS n FROM events WHERE type = 'webhook_endpoint.test' AND data->>'endpoint_id' = $1`,
      [String(off.id)],
    );
    expect(events.rows[0].n).toBe(0);
  });

  it('an admin with webhooks:operate sends one, audited with the admin as actor', async () => {
    const r = await receiver();
    const ep = await createEndpoint(t, app.TEST, { url: r.url() });
    const operator = await adminWith(t, ['webhooks:operate']);
    const res = await sendTest(ep.id, {
      ...bearer(operator.token),
      'X-App-Id': String(app.id),
      'X-Mode': 'TEST',
    });
    expect(res.status).toBe(200);
    await r.waitFor(1);
    const audit = await t.db.query(
      `SELECT target_id FROM audit_events WHERE action = 'webhook_endpoint.test_sent' AND actor_user_id = $1`,
      [operator.id],
    );
    expect(audit.rows).toEqual([{ target_id: String(ep.id) }]);
  });

  it('at most 10 per endpoint per minute, counted across replicas: 429 with Retry-After beyond, nothing recorded', async () => {
    const r = await receiver();
    const own = await createApp(t);
    const ep = await createEndpoint(t, own.TEST, { url: r.url() });
    const other = await createEndpoint(t, own.TEST, { url: r.url() });
    const replica = await createTestApp({ databaseUrl: t.databaseUrl });
    const now = new Date();
    t.clock.freeze(now);
    replica.clock.freeze(now);
    try {
      const viaReplica = () =>
        replica.http().post(`/api/v1/webhook-endpoints/${ep.id}/test`).set(asApp(own.TEST));
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++)
        statuses.push((await (i % 2 ? viaReplica() : sendTest(ep.id, asApp(own.TEST)))).status);
      expect(statuses).toEqual(Array(10).fill(200));
      const testEvents = async () =>
        (
          await t.db.query(
            `SELECT count(*)::int AS n FROM events WHERE type = 'webhook_endpoint.test' AND data->>'endpoint_id' = $1`,
            [String(ep.id)],
          )
        ).rows[0].n as number;
      expect(await testEvents()).toBe(10);
      for (const eleventh of [await sendTest(ep.id, asApp(own.TEST)), await viaReplica()]) {
        expect(eleventh.status).toBe(429);
        expect(eleventh.body.meta.errorCode).toBe('RATE_LIMITED');
        expect(eleventh.body.meta.message).toContain('10 test events per endpoint per minute');
        expect(eleventh.headers['retry-after']).toBe('60');
      }
      expect(await testEvents()).toBe(10);
      // Another endpoint has its own count.
      expect((await sendTest(other.id, asApp(own.TEST))).status).toBe(200);
      // 59 s on: still refused, and Retry-After counts down; a minute after the first, allowed again.
      t.clock.advance(59_000);
      const later = await sendTest(ep.id, asApp(own.TEST));
      expect(later.status).toBe(429);
      expect(later.headers['retry-after']).toBe('1');
      t.clock.advance(1_000);
      expect((await sendTest(ep.id, asApp(own.TEST))).status).toBe(200);
      expect(await testEvents()).toBe(11);
    } finally {
      t.clock.reset();
      await replica.close();
    }
  });
});
