import { decryptSecret } from '../../src/common/crypto/crypto';
import { EVENT_TYPES } from '../../src/events/event-catalogue';
import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  superAdminToken,
} from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { createEndpoint } from '../support/webhooks';

describe('webhooks: endpoint management', () => {
  let t: TestApp;
  let app: CreatedApp;
  const base = '/api/v1/webhook-endpoints';

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    app = await createApp(t);
  });

  it('issues the secret once, stores it sealed with ENCRYPTION_KEY and never shows it again', async () => {
    const res = await t
      .http()
      .post(base)
      .set(asApp(app.TEST))
      .send({ url: 'https://shop.example.com/hooks', events: ['*'], description: 'orders' });
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created).toEqual({
      id: expect.any(Number),
      applicationId: app.id,
      mode: 'TEST',
      url: 'https://shop.example.com/hooks',
      description: 'orders',
      events: ['*'],
      enabled: true,
      legacy: false,
      secretRotatedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const row = await t.db.query('SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1', [
      created.id,
    ]);
    expect(row.rows[0].secret_ciphertext).not.toContain(created.secret.slice(6));
    expect(decryptSecret(t.config.encryptionKey, row.rows[0].secret_ciphertext)).toBe(
      created.secret,
    );

    const got = await t.http().get(`${base}/${created.id}`).set(asApp(app.TEST));
    expect(got.status).toBe(200);
    expect(got.body.data.secret).toBeUndefined();
    expect(got.text).not.toContain(created.secret);
    const list = await t.http().get(base).set(asApp(app.TEST));
    expect(list.body.data.map((e: { id: number }) => e.id)).toEqual([created.id]);
    expect(list.text).not.toContain(created.secret);
  });

  it('accepts ["*"] or an explicit list of catalogue types, nothing else', async () => {
    const ok = await createEndpoint(t, app.TEST, {
      url: 'https://a.example.com/',
      events: ['payment.succeeded', 'payment.succeeded', 'invoice.paid'],
    });
    const got = await t.http().get(`${base}/${ok.id}`).set(asApp(app.TEST));
    expect(got.body.data.events).toEqual(['payment.succeeded', 'invoice.paid']);
    for (const events of [
      ['*', 'invoice.paid'],
      ['payment.refunded'],
      [],
      'payment.succeeded',
      [42],
    ]) {
      const res = await t
        .http()
        .post(base)
        .set(asApp(app.TEST))
        .send({ url: 'https://a.example.com/', events });
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    }
    const full = await t
      .http()
      .post(base)
      .set(asApp(app.TEST))
      .send({ url: 'https://a.example.com/', events: [...EVENT_TYPES] });
    expect(full.status).toBe(201);
    const unknownField = await t
      .http()
      .post(base)
      .set(asApp(app.TEST))
      .send({ url: 'https://a.example.com/', events: ['*'], mode: 'LIVE' });
    expect(unknownField.status).toBe(400);
  });

  it('refuses a LIVE http URL with WEBHOOK_URL_REQUIRES_TLS, at creation and on update', async () => {
    const refused = await t
      .http()
      .post(base)
      .set(asApp(app.LIVE))
      .send({ url: 'http://shop.example.com/hooks', events: ['*'] });
    expect(refused.status).toBe(400);
    expect(refused.body.meta.errorCode).toBe('WEBHOOK_URL_REQUIRES_TLS');
    const live = await createEndpoint(t, app.LIVE, { url: 'https://shop.example.com/hooks' });
    const patched = await t
      .http()
      .patch(`${base}/${live.id}`)
      .set(asApp(app.LIVE))
      .send({ url: 'http://shop.example.com/hooks' });
    expect(patched.status).toBe(400);
    expect(patched.body.meta.errorCode).toBe('WEBHOOK_URL_REQUIRES_TLS');
    // TEST follows the deployment allowlist (http,https in this test app).
    const test = await t
      .http()
      .post(base)
      .set(asApp(app.TEST))
      .send({ url: 'http://shop.example.com/hooks', events: ['*'] });
    expect(test.status).toBe(201);
    for (const url of [
      'not a url',
      'ftp://shop.example.com/',
      'https://user:pw@shop.example.com/',
    ]) {
      const bad = await t
        .http()
        .post(base)
        .set(asApp(app.TEST))
        .send({ url, events: ['*'] });
      expect(bad.status).toBe(400);
      expect(bad.body.meta.errorCode).toBe('WEBHOOK_URL_NOT_ALLOWED');
    }
  });

  it('allows five endpoints per app and mode; the sixth is 409 WEBHOOK_ENDPOINT_LIMIT_REACHED', async () => {
    const results = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        t
          .http()
          .post(base)
          .set(asApp(app.TEST))
          .send({ url: `https://h${i}.example.com/`, events: ['*'] }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.body.meta.errorCode])).toEqual([
      [409, 'WEBHOOK_ENDPOINT_LIMIT_REACHED'],
      [409, 'WEBHOOK_ENDPOINT_LIMIT_REACHED'],
    ]);
    // The other mode has its own five; deleting one frees a place.
    expect(
      (
        await t
          .http()
          .post(base)
          .set(asApp(app.LIVE))
          .send({ url: 'https://l.example.com/', events: ['*'] })
      ).status,
    ).toBe(201);
    const victim = results.find((r) => r.status === 201)!.body.data.id;
    expect((await t.http().delete(`${base}/${victim}`).set(asApp(app.TEST))).status).toBe(200);
    expect(
      (
        await t
          .http()
          .post(base)
          .set(asApp(app.TEST))
          .send({ url: 'https://again.example.com/', events: ['*'] })
      ).status,
    ).toBe(201);
  });

  it('keeps modes and apps apart: another mode or app gets 404', async () => {
    const e = await createEndpoint(t, app.TEST, { url: 'https://a.example.com/' });
    const other = await createApp(t);
    for (const creds of [app.LIVE, other.TEST]) {
      for (const req of [
        t.http().get(`${base}/${e.id}`),
        t.http().patch(`${base}/${e.id}`).send({ enabled: false }),
        t.http().delete(`${base}/${e.id}`),
        t.http().post(`${base}/${e.id}/rotate-secret`),
        t.http().get(`${base}/${e.id}/deliveries`),
      ]) {
        const res = await req.set(asApp(creds));
        expect(res.status).toBe(404);
        expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
      }
    }
    expect((await t.http().get(base).set(asApp(app.LIVE))).body.data).toEqual([]);
  });

  it('updates url, events, enabled and description; deletes', async () => {
    const e = await createEndpoint(t, app.TEST, {
      url: 'https://a.example.com/',
      description: 'first',
    });
    const res = await t
      .http()
      .patch(`${base}/${e.id}`)
      .set(asApp(app.TEST))
      .send({
        url: 'https://b.example.com/hook',
        events: ['refund.failed'],
        enabled: false,
        description: '',
      });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      url: 'https://b.example.com/hook',
      events: ['refund.failed'],
      enabled: false,
      description: null,
    });
    const del = await t.http().delete(`${base}/${e.id}`).set(asApp(app.TEST));
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ id: e.id, deleted: true });
    expect((await t.http().get(`${base}/${e.id}`).set(asApp(app.TEST))).status).toBe(404);
    expect((await t.http().delete(`${base}/${e.id}`).set(asApp(app.TEST))).status).toBe(404);
  });

  it('rotates the secret: a new one, shown once, the stored one replaced', async () => {
    const e = await createEndpoint(t, app.TEST, { url: 'https://a.example.com/' });
    const res = await t.http().post(`${base}/${e.id}/rotate-secret`).set(asApp(app.TEST));
    expect(res.status).toBe(200);
    expect(res.body.data.secret).toMatch(/^whsec_/);
    expect(res.body.data.secret).not.toBe(e.secret);
    expect(res.body.data.secretRotatedAt).toEqual(expect.any(String));
    const row = await t.db.query('SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1', [
      e.id,
    ]);
    expect(decryptSecret(t.config.encryptionKey, row.rows[0].secret_ciphertext)).toBe(
      res.body.data.secret,
    );
  });

  it('replays an idempotent create instead of creating twice', async () => {
    const send = () =>
      t
        .http()
        .post(base)
        .set(asApp(app.TEST))
        .set('Idempotency-Key', 'wh-1')
        .send({ url: 'https://a.example.com/', events: ['*'] });
    const first = await send();
    const second = await send();
    expect(first.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.data.id).toBe(first.body.data.id);
    const n = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE app_id = $1',
      [app.id],
    );
    expect(n.rows[0].n).toBe(1);
  });

  it('gates operator routes behind webhooks:operate', async () => {
    const e = await createEndpoint(t, app.TEST, { url: 'https://a.example.com/' });
    const reader = await adminWith(t, ['apps:read']);
    const operator = await adminWith(t, ['webhooks:operate']);
    for (const [method, path] of [
      ['get', '/api/v1/admin/webhook-deliveries'],
      ['get', '/api/v1/admin/webhook-endpoints'],
      ['post', `/api/v1/admin/webhook-endpoints/${e.id}/resend-parked`],
      ['post', '/api/v1/admin/webhook-deliveries/1/resend'],
    ] as const) {
      expect((await t.http()[method](path)).status).toBe(401);
      const denied = await t.http()[method](path).set(bearer(reader.token));
      expect(denied.status).toBe(403);
      expect(denied.body.meta.errorCode).toBe('PERMISSION_DENIED');
    }
    const list = await t
      .http()
      .get(`/api/v1/admin/webhook-endpoints?applicationId=${app.id}&mode=TEST`)
      .set(bearer(operator.token));
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { id: number }) => x.id)).toEqual([e.id]);
    expect(list.text).not.toContain(e.secret);
    const parked = await t
      .http()
      .post(`/api/v1/admin/webhook-endpoints/${e.id}/resend-parked`)
      .set(bearer(await superAdminToken(t)));
    expect(parked.body.data).toEqual({ endpointId: e.id, resent: 0 });
  });

  it('documents every webhook route in Swagger', async () => {
    const doc = (await t.http().get('/docs-json')).body;
    for (const path of [
      '/api/v1/webhook-endpoints',
      '/api/v1/webhook-endpoints/{id}',
      '/api/v1/webhook-endpoints/{id}/rotate-secret',
      '/api/v1/webhook-endpoints/{id}/deliveries',
      '/api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}',
      '/api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend',
      '/api/v1/events',
      '/api/v1/admin/webhook-deliveries',
      '/api/v1/admin/webhook-deliveries/{id}',
      '/api/v1/admin/webhook-deliveries/{id}/resend',
      '/api/v1/admin/webhook-endpoints',
      '/api/v1/admin/webhook-endpoints/{id}/resend-parked',
    ]) {
      expect(doc.paths[path]).toBeDefined();
      for (const op of Object.values(doc.paths[path]) as { summary?: string }[])
        expect(op.summary).toBeTruthy();
    }
  });
});

describe('webhooks: deployment settings at save (SSRF guard on, https-only TEST)', () => {
  let t: TestApp;
  let app: CreatedApp;
  const base = '/api/v1/webhook-endpoints';

  beforeAll(async () => {
    t = await createTestApp({
      config: { webhookAllowPrivateTargets: false, webhookTestAllowedSchemes: ['https'] },
    });
    app = await createApp(t);
  });
  afterAll(() => t.close());

  it('refuses private, loopback, link-local and metadata targets', async () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'https://localhost:8443/hook',
      'https://10.1.2.3/hook',
      'https://192.168.1.10/hook',
      'https://172.20.0.5/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://168.63.129.16/machine?comp=goalstate',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:169.254.169.254]/latest/meta-data',
      'https://[::127.0.0.1]/hook',
      'https://[::169.254.169.254]/latest/meta-data',
      'https://[fd00::1]/hook',
      'https://[fd00:ec2::254]/latest/meta-data',
      'https://0.0.0.0/hook',
    ]) {
      const res = await t
        .http()
        .post(base)
        .set(asApp(app.TEST))
        .send({ url, events: ['*'] });
      expect([url, res.status, res.body.meta.errorCode]).toEqual([
        url,
        400,
        'WEBHOOK_URL_NOT_ALLOWED',
      ]);
    }
    const publicTarget = await t
      .http()
      .post(base)
      .set(asApp(app.LIVE))
      .send({ url: 'https://93.184.215.14/hook', events: ['*'] });
    expect(publicTarget.status).toBe(201);
  });

  it('checks TEST URLs against WEBHOOK_TEST_ALLOWED_SCHEMES, LIVE http is still REQUIRES_TLS', async () => {
    const test = await t
      .http()
      .post(base)
      .set(asApp(app.TEST))
      .send({ url: 'http://93.184.215.14/hook', events: ['*'] });
    expect(test.status).toBe(400);
    expect(test.body.meta.errorCode).toBe('WEBHOOK_URL_NOT_ALLOWED');
    const live = await t
      .http()
      .post(base)
      .set(asApp(app.LIVE))
      .send({ url: 'http://93.184.215.14/hook', events: ['*'] });
    expect(live.body.meta.errorCode).toBe('WEBHOOK_URL_REQUIRES_TLS');
  });

  it('refusals name the setting that allows a local receiver in TEST, and never reveal the resolved address', async () => {
    const scheme = await t
      .http()
      .post(base)
      .set(asApp(app.TEST))
      .send({ url: 'http://93.184.215.14/hook', events: ['*'] });
    expect(scheme.body.meta.message).toContain('WEBHOOK_TEST_ALLOWED_SCHEMES=https,http');

    const local = await t
      .http()
      .post(base)
      .set(asApp(app.TEST))
      .send({ url: 'https://localhost:8443/hook', events: ['*'] });
    expect(local.status).toBe(400);
    expect(local.body.meta.message).toBe(
      'Webhook URL not allowed: localhost is a private, loopback, link-local or reserved address. ' +
        'To deliver TEST events to a receiver on your own machine or network, start Joma with ' +
        'WEBHOOK_ALLOW_PRIVATE_TARGETS=true (development only; see docs/webhooks.md)',
    );
    expect(JSON.stringify(local.body)).not.toMatch(/127\.0\.0\.1|::1/);

    // A receiver on the laptop is usually http too: both settings are named at once (one restart).
    const localHttp = await t
      .http()
      .post(base)
      .set(asApp(app.TEST))
      .send({ url: 'http://localhost:4000/hooks', events: ['*'] });
    expect(localHttp.status).toBe(400);
    expect(localHttp.body.meta.message).toBe(
      'Webhook URL not allowed: localhost is a private, loopback, link-local or reserved address, ' +
        'and TEST webhook URLs may use: https. ' +
        'To deliver TEST events to a receiver on your own machine or network, start Joma with ' +
        'WEBHOOK_ALLOW_PRIVATE_TARGETS=true WEBHOOK_TEST_ALLOWED_SCHEMES=https,http ' +
        '(development only; see docs/webhooks.md)',
    );

    const liveLocal = await t
      .http()
      .post(base)
      .set(asApp(app.LIVE))
      .send({ url: 'https://localhost:8443/hook', events: ['*'] });
    expect(liveLocal.status).toBe(400);
    expect(liveLocal.body.meta.message).not.toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS');
  });
});

describe('webhooks: LIVE http refused whatever the deployment allows', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      config: { webhookTestAllowedSchemes: ['http', 'https'], webhookAllowPrivateTargets: true },
    });
  });
  afterAll(() => t.close());

  it('is 400 WEBHOOK_URL_REQUIRES_TLS even with http allowed for TEST and private targets allowed', async () => {
    const app = await createApp(t);
    const res = await t
      .http()
      .post('/api/v1/webhook-endpoints')
      .set(asApp(app.LIVE))
      .send({ url: 'http://127.0.0.1:9/hook', events: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('WEBHOOK_URL_REQUIRES_TLS');
  });
});
