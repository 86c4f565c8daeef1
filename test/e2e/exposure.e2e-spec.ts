import { Logger } from '@nestjs/common';

import { freePort } from '../../src/common/net/free-port';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Nothing exposed by default: Prometheus metrics only on their own listener
 * (127.0.0.1), `no-store` on API responses, `nosniff` everywhere, Swagger
 * UI not frameable, HSTS when the public base URL is https.
 */

describe('exposure', () => {
  let t: TestApp;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    t = await createTestApp({
      config: { metricsPort, metricsHost: '127.0.0.1', publicBaseUrl: 'https://pay.joma.test' },
    });
  });
  afterAll(() => t.close());

  it('/metrics is not on the public port, and is on its own listener', async () => {
    const pub = await t.http().get('/metrics');
    expect(pub.status).toBe(404);
    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(own.status).toBe(200);
    expect(await own.text()).toMatch(/^joma_http_requests_total/m);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status).toBe(404);
  });

  it('API responses are no-store and nosniff; pages and docs are nosniff and not frameable', async () => {
    const api = await t.http().get('/api/v1/invoices');
    expect(api.status).toBe(401);
    expect(api.headers['cache-control']).toBe('no-store');
    expect(api.headers['x-content-type-options']).toBe('nosniff');
    const login = await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: 'a@b.c', password: 'wrong-password' });
    expect(login.headers['cache-control']).toBe('no-store');
    // Routing ignores letter case: /API/v1 reaches the API, and gets its header.
    const upper = await t.http().get('/API/V1/invoices');
    expect(upper.status).toBe(401);
    expect(upper.headers['cache-control']).toBe('no-store');
    const docs = await t.http().get('/docs/');
    expect(docs.status).toBe(200);
    // Swagger UI's own files, served from the package (serve-static, or @fastify/static).
    const asset = /src="\.?\/?((?:docs\/)?swagger-ui-bundle\.js)"/.exec(docs.text)?.[1];
    expect(asset).toBeDefined();
    const bundle = await t.http().get(`/docs/${asset!.replace(/^docs\//, '')}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.text.length).toBeGreaterThan(100_000);
    expect(docs.headers['x-frame-options']).toBe('DENY');
    expect(docs.headers['x-content-type-options']).toBe('nosniff');
    const health = await t.http().get('/healthz');
    expect(health.headers['x-content-type-options']).toBe('nosniff');
  });

  it('X-Forwarded-For that is not a list of IP addresses is ignored: the socket address is the client', async () => {
    // Test apps trust loopback proxies, so a well-formed header is believed ...
    const ok = await t
      .http()
      .post('/api/v1/auth/login')
      .set('X-Forwarded-For', '198.51.100.23')
      .send({ email: 'xff@joma.test', password: 'wrong-password' });
    expect(ok.status).toBe(401);
    // ... and anything else is the client's own writing, not an address.
    for (const forged of ['not-an-address', '198.51.100.23, <script>', 'unknown']) {
      const res = await t
        .http()
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', forged)
        .send({ email: 'xff@joma.test', password: 'wrong-password' });
      expect(res.status).toBe(401);
    }
    const keys = await t.db.query(
      `SELECT count(*)::int AS n FROM login_throttles WHERE key LIKE 'addr:%'`,
    );
    // Two clients: 198.51.100.23 and the socket's loopback address.
    expect(keys.rows[0].n).toBe(2);
  });

  it('HSTS is sent when PUBLIC_BASE_URL is https, and not otherwise', async () => {
    const res = await t.http().get('/healthz');
    expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d+; includeSubDomains$/);
    const plain = await createTestApp();
    try {
      expect(
        (await plain.http().get('/healthz')).headers['strict-transport-security'],
      ).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it('a taken metrics port costs one warning, and the service runs on', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const second = await createTestApp({ config: { metricsPort, metricsHost: '127.0.0.1' } });
    try {
      const lines = warn.mock.calls.map((a) => String(a[0]));
      expect(lines.filter((l) => l.includes('Metrics listener not started'))).toEqual([
        `Metrics listener not started: 127.0.0.1:${metricsPort} is already in use; set METRICS_PORT to a free port (0 turns it off)`,
      ]);
      expect((await second.http().get('/healthz')).status).toBe(200);
    } finally {
      warn.mockRestore();
      await second.close();
    }
  });
});
