import { asApp, bearer, createApp, superAdminToken } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/** Polls until `probe` holds; bounded, for changes announced asynchronously (NOTIFY). */
async function within<T>(ms: number, probe: () => Promise<T | false>): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== false) return v;
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('app keys across replicas', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({ databaseUrl: a.databaseUrl });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  const call = (t: TestApp, creds: { apiKey: string; apiSecret: string }) =>
    t.http().get('/api/v1/benefits').set(asApp(creds));

  it('a rotation on one replica stops the old secret on the other, well before its cache would expire', async () => {
    const app = await createApp(a);
    expect((await call(b, app.TEST)).status).toBe(200); // cached on b now
    const rotated = await a
      .http()
      .post(`/api/v1/admin/apps/${app.id}/credentials/TEST/rotate`)
      .set(bearer(await superAdminToken(a)));
    expect(rotated.status).toBe(201);
    const fresh = { apiKey: rotated.body.data.apiKey, apiSecret: rotated.body.data.apiSecret };
    expect((await call(a, app.TEST)).status).toBe(401); // at once where it happened
    const started = Date.now();
    await within(3000, async () => (await call(b, app.TEST)).status === 401 || false);
    expect(Date.now() - started).toBeLessThan(3000); // the cache alone would keep it for up to 10 s
    expect((await call(b, fresh)).status).toBe(200);
  });

  it('a suspension on one replica refuses the app on the other', async () => {
    const app = await createApp(a);
    expect((await call(b, app.LIVE)).status).toBe(200);
    const suspended = await a
      .http()
      .patch(`/api/v1/admin/apps/${app.id}`)
      .set(bearer(await superAdminToken(a)))
      .send({ status: 'SUSPENDED' });
    expect(suspended.status).toBe(200);
    const res = await within(3000, async () => {
      const r = await call(b, app.LIVE);
      return r.status === 403 ? r : false;
    });
    expect(res.body.meta.errorCode).toBe('APP_SUSPENDED');
  });
});
