import { createHash } from 'node:crypto';

import { asApp, bearer, createApp, superAdminToken } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('admin apps', () => {
  let t: TestApp;
  let token: string;
  const admin = () => ({ get: (p: string) => t.http().get(p).set(bearer(token)) });
  const appCall = (creds: { apiKey: string; apiSecret: string }) =>
    t.http().get('/api/v1/benefits').set(asApp(creds));
  const settings = (id: number, body: object) =>
    t.http().patch(`/api/v1/admin/apps/${id}/settings`).set(bearer(token)).send(body);

  /** Every text cell of every table, to prove a value is stored nowhere. */
  async function tablesContaining(needle: string): Promise<string[]> {
    const tables = await t.db.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const hits: string[] = [];
    for (const { name } of tables.rows) {
      const r = await t.db.query(
        `SELECT count(*)::int AS n FROM "${name}" x WHERE strpos(x::text, $1) > 0`,
        [needle],
      );
      if (r.rows[0].n > 0) hits.push(name);
    }
    return hits;
  }

  beforeAll(async () => {
    t = await createTestApp();
    token = await superAdminToken(t);
  });
  afterAll(() => t.close());

  describe('create', () => {
    it('returns both credential pairs once, with the documented prefixes', async () => {
      const res = await t
        .http()
        .post('/api/v1/admin/apps')
        .set(bearer(token))
        .send({ name: '  Shop Dhaka  ' });
      expect(res.status).toBe(201);
      const app = res.body.data;
      expect(app.name).toBe('Shop Dhaka');
      expect(app.status).toBe('ACTIVE');
      const creds = app.credentials as { mode: string; apiKey: string; apiSecret: string }[];
      expect(creds.map((c) => c.mode).sort()).toEqual(['LIVE', 'TEST']);
      for (const c of creds) {
        const m = c.mode.toLowerCase();
        expect(c.apiKey).toMatch(new RegExp(`^pk_${m}_[A-Za-z0-9_-]{20,}$`));
        // At least 32 random bytes: 43 base64url characters after the prefix.
        expect(c.apiSecret).toMatch(new RegExp(`^sk_${m}_[A-Za-z0-9_-]{43,}$`));
      }
      expect(new Set(creds.flatMap((c) => [c.apiKey, c.apiSecret])).size).toBe(4);
    });

    it('GET never shows a secret, and the database holds only SHA-256 hashes', async () => {
      const app = await createApp(t);
      const one = await admin().get(`/api/v1/admin/apps/${app.id}`);
      expect(one.status).toBe(200);
      expect(one.body.data.credentials).toHaveLength(2);
      expect(one.body.data.credentials).toEqual(
        expect.arrayContaining([
          { mode: 'LIVE', apiKey: app.LIVE.apiKey },
          { mode: 'TEST', apiKey: app.TEST.apiKey },
        ]),
      );
      const listed = await admin().get('/api/v1/admin/apps?paginate=false');
      for (const res of [one, listed]) {
        expect(res.text).not.toContain(app.TEST.apiSecret);
        expect(res.text).not.toContain(app.LIVE.apiSecret);
        expect(res.text).not.toMatch(/sk_(test|live)_/);
      }
      const rows = await t.db.query(
        'SELECT mode, secret_hash FROM app_credentials WHERE app_id = $1 ORDER BY mode',
        [app.id],
      );
      expect(rows.rows).toEqual([
        { mode: 'TEST', secret_hash: sha256(app.TEST.apiSecret) },
        { mode: 'LIVE', secret_hash: sha256(app.LIVE.apiSecret) },
      ]);
      for (const secret of [app.TEST.apiSecret, app.LIVE.apiSecret, app.TEST.apiSecret.slice(8)]) {
        expect(await tablesContaining(secret)).toEqual([]);
      }
    });

    it('a missing or empty name: 400', async () => {
      for (const body of [{}, { name: '' }, { name: '   ' }, { name: 5 }]) {
        const res = await t.http().post('/api/v1/admin/apps').set(bearer(token)).send(body);
        expect(res.status).toBe(400);
        expect(res.body.meta.details[0].field).toBe('name');
      }
    });
  });

  describe('settings', () => {
    it('start at the documented defaults', async () => {
      const app = await createApp(t);
      const res = await admin().get(`/api/v1/admin/apps/${app.id}`);
      expect(res.body.data).toMatchObject({
        id: app.id,
        name: app.name,
        status: 'ACTIVE',
        logoUrl: null,
        minAmountMinor: 1000,
        maxAmountMinor: 50_000_000,
        paymentExpiryMinutes: 30,
        refundApprovalThresholdMinor: 1_000_000,
        receiptsEnabled: true,
        dunningEnabled: true,
        returnUrlAllowlist: '',
        defaultSuccessUrl: null,
        defaultFailUrl: null,
        defaultCancelUrl: null,
      });
    });

    it('PATCH changes only what is sent, and accepts the exact bounds', async () => {
      const app = await createApp(t);
      const res = await settings(app.id, {
        minAmountMinor: 100,
        maxAmountMinor: 1_000_000_000,
        paymentExpiryMinutes: 1440,
        receiptsEnabled: false,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        minAmountMinor: 100,
        maxAmountMinor: 1_000_000_000,
        paymentExpiryMinutes: 1440,
        receiptsEnabled: false,
        dunningEnabled: true,
        refundApprovalThresholdMinor: 1_000_000,
      });
      const next = await settings(app.id, {
        paymentExpiryMinutes: 1,
        refundApprovalThresholdMinor: 0,
        returnUrlAllowlist: 'https://shop.example, http://localhost:3000',
        defaultSuccessUrl: 'https://shop.example/thanks',
        logoUrl: 'https://cdn.example/logo.png',
      });
      expect(next.status).toBe(200);
      expect(next.body.data).toMatchObject({
        paymentExpiryMinutes: 1,
        refundApprovalThresholdMinor: 0,
        minAmountMinor: 100,
        defaultSuccessUrl: 'https://shop.example/thanks',
      });
      // The default return URL obeys the allowlist, as it is and as it would become.
      for (const refused of [
        { defaultSuccessUrl: 'https://evil.example/thanks' },
        { returnUrlAllowlist: 'https://other.example' },
      ]) {
        const res = await settings(app.id, refused);
        expect([res.status, res.body.meta.errorCode]).toEqual([400, 'REDIRECT_URL_NOT_ALLOWED']);
        expect(res.body.meta.details[0].field).toBe('defaultSuccessUrl');
      }
      const cleared = await settings(app.id, { defaultSuccessUrl: null, logoUrl: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.data).toMatchObject({ defaultSuccessUrl: null, logoUrl: null });
      const row = await t.db.query(
        'SELECT min_amount_minor, max_amount_minor, payment_expiry_minutes, receipts_enabled FROM apps WHERE id = $1',
        [app.id],
      );
      expect(row.rows[0]).toEqual({
        min_amount_minor: 100,
        max_amount_minor: 1_000_000_000,
        payment_expiry_minutes: 1,
        receipts_enabled: false,
      });
    });

    it.each([
      ['minAmountMinor', 99],
      ['minAmountMinor', 0],
      ['maxAmountMinor', 1_000_000_001],
      ['maxAmountMinor', 99],
      ['paymentExpiryMinutes', 0],
      ['paymentExpiryMinutes', 1441],
      ['paymentExpiryMinutes', 30.5],
      ['refundApprovalThresholdMinor', -1],
      ['minAmountMinor', null],
      ['maxAmountMinor', '5000'],
      ['receiptsEnabled', 'yes'],
      ['dunningEnabled', null],
      ['returnUrlAllowlist', null],
      ['returnUrlAllowlist', 'https://ok.example, ftp://files.example'],
      ['returnUrlAllowlist', 'not a url'],
      ['defaultSuccessUrl', 'javascript:alert(1)'],
      ['defaultFailUrl', 'shop.example/fail'],
      ['logoUrl', 'ftp://cdn.example/logo.png'],
    ])('%s = %p: 400 VALIDATION_FAILED naming the field, nothing saved', async (field, value) => {
      const app = await createApp(t);
      const before = (await admin().get(`/api/v1/admin/apps/${app.id}`)).body.data;
      const res = await settings(app.id, { [field]: value });
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details.map((d: { field: string }) => d.field)).toContain(field);
      const after = (await admin().get(`/api/v1/admin/apps/${app.id}`)).body.data;
      expect(after).toEqual(before);
    });

    it('min above max: 400, whether both are sent or one meets the stored other', async () => {
      const app = await createApp(t);
      const both = await settings(app.id, { minAmountMinor: 5000, maxAmountMinor: 4000 });
      expect(both.status).toBe(400);
      expect(both.body.meta.details).toEqual([
        { field: 'minAmountMinor', message: expect.stringMatching(/maxAmountMinor/) },
      ]);
      const againstStored = await settings(app.id, { minAmountMinor: 60_000_000 });
      expect(againstStored.status).toBe(400);
      const maxBelowStoredMin = await settings(app.id, { maxAmountMinor: 999 });
      expect(maxBelowStoredMin.status).toBe(400);
      expect((await settings(app.id, { minAmountMinor: 4000, maxAmountMinor: 4000 })).status).toBe(
        200,
      );
    });
  });

  describe('app credentials in use', () => {
    it('both pairs authenticate, each in its own mode; missing or wrong headers are refused', async () => {
      const app = await createApp(t);
      const other = await createApp(t);
      expect((await appCall(app.TEST)).status).toBe(200);
      expect((await appCall(app.LIVE)).status).toBe(200);
      const missing = await t.http().get('/api/v1/benefits').set('X-Api-Key', app.TEST.apiKey);
      expect(missing.status).toBe(401);
      expect(missing.body.meta.errorCode).toBe('AUTHENTICATION_REQUIRED');
      const none = await t.http().get('/api/v1/benefits');
      expect(none.body.meta.errorCode).toBe('AUTHENTICATION_REQUIRED');
      for (const creds of [
        { apiKey: app.TEST.apiKey, apiSecret: app.LIVE.apiSecret },
        { apiKey: app.TEST.apiKey, apiSecret: other.TEST.apiSecret },
        { apiKey: 'pk_test_unknown', apiSecret: app.TEST.apiSecret },
        { apiKey: app.TEST.apiKey, apiSecret: `${app.TEST.apiSecret}x` },
      ]) {
        const res = await appCall(creds);
        expect(res.status).toBe(401);
        expect(res.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
      }
    });

    it('rotation: the old pair is refused at once, the new one works, the other mode is untouched', async () => {
      const app = await createApp(t);
      expect((await appCall(app.TEST)).status).toBe(200); // warm the key cache
      const rot = await t
        .http()
        .post(`/api/v1/admin/apps/${app.id}/credentials/TEST/rotate`)
        .set(bearer(token));
      expect(rot.status).toBe(201);
      const fresh = rot.body.data as { mode: string; apiKey: string; apiSecret: string };
      expect(fresh.mode).toBe('TEST');
      expect(fresh.apiKey).toMatch(/^pk_test_/);
      expect(fresh.apiSecret).toMatch(/^sk_test_/);
      // The key stays; only the secret is new (decisions 20).
      expect(fresh.apiKey).toBe(app.TEST.apiKey);
      expect(fresh.apiSecret).not.toBe(app.TEST.apiSecret);

      const old = await appCall(app.TEST);
      expect(old.status).toBe(401);
      expect(old.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
      expect((await appCall({ apiKey: fresh.apiKey, apiSecret: app.TEST.apiSecret })).status).toBe(
        401,
      );
      expect((await appCall(fresh)).status).toBe(200);
      expect((await appCall(app.LIVE)).status).toBe(200);

      const shown = await admin().get(`/api/v1/admin/apps/${app.id}`);
      expect(shown.body.data.credentials).toContainEqual({ mode: 'TEST', apiKey: fresh.apiKey });
      expect(shown.text).not.toContain(fresh.apiSecret);
      const row = await t.db.query(
        `SELECT secret_hash, rotated_at FROM app_credentials WHERE app_id = $1 AND mode = 'TEST'`,
        [app.id],
      );
      expect(row.rows[0].secret_hash).toBe(sha256(fresh.apiSecret));
      expect(row.rows[0].rotated_at).toBeInstanceOf(Date);
    });

    it('rotation of an unknown mode is 400', async () => {
      const app = await createApp(t);
      const res = await t
        .http()
        .post(`/api/v1/admin/apps/${app.id}/credentials/test/rotate`)
        .set(bearer(token));
      expect(res.status).toBe(400);
      expect(res.body.meta.details).toEqual([{ field: 'mode', message: expect.any(String) }]);
    });

    it('suspension: 403 APP_SUSPENDED in both modes; reactivation restores access', async () => {
      const app = await createApp(t);
      expect((await appCall(app.TEST)).status).toBe(200); // warm the key cache
      const suspend = await t
        .http()
        .patch(`/api/v1/admin/apps/${app.id}`)
        .set(bearer(token))
        .send({ status: 'SUSPENDED' });
      expect(suspend.status).toBe(200);
      expect(suspend.body.data.status).toBe('SUSPENDED');
      for (const creds of [app.TEST, app.LIVE]) {
        const res = await appCall(creds);
        expect(res.status).toBe(403);
        expect(res.body.meta.errorCode).toBe('APP_SUSPENDED');
      }
      const create = await t
        .http()
        .post('/api/v1/benefits')
        .set(asApp(app.TEST))
        .send({ lookupKey: 'gold', name: 'Gold' });
      expect(create.status).toBe(403);
      // A wrong secret is still a credential error: suspension is not revealed to a stranger.
      expect((await appCall({ apiKey: app.TEST.apiKey, apiSecret: 'sk_test_wrong' })).status).toBe(
        401,
      );
      const reactivate = await t
        .http()
        .patch(`/api/v1/admin/apps/${app.id}`)
        .set(bearer(token))
        .send({ status: 'ACTIVE' });
      expect(reactivate.status).toBe(200);
      expect((await appCall(app.TEST)).status).toBe(200);
      expect((await appCall(app.LIVE)).status).toBe(200);
    });

    it('an invalid status or a null name: 400', async () => {
      const app = await createApp(t);
      for (const body of [{ status: 'DELETED' }, { status: null }, { name: null }]) {
        const res = await t
          .http()
          .patch(`/api/v1/admin/apps/${app.id}`)
          .set(bearer(token))
          .send(body);
        expect(res.status).toBe(400);
      }
    });
  });

  describe('unknown app', () => {
    it.each([
      ['GET', '/api/v1/admin/apps/999999', undefined],
      ['PATCH', '/api/v1/admin/apps/999999', { status: 'SUSPENDED' }],
      ['PATCH', '/api/v1/admin/apps/999999/settings', { paymentExpiryMinutes: 10 }],
      ['POST', '/api/v1/admin/apps/999999/credentials/LIVE/rotate', undefined],
    ])('%s %s: 404 RESOURCE_NOT_FOUND', async (method, path, body) => {
      const req =
        method === 'GET'
          ? t.http().get(path)
          : method === 'PATCH'
            ? t.http().patch(path)
            : t.http().post(path);
      const res = await req.set(bearer(token)).send(body);
      expect(res.status).toBe(404);
      expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    });
  });

  describe('list', () => {
    it('pages and filters by status', async () => {
      const a = await createApp(t);
      await t
        .http()
        .patch(`/api/v1/admin/apps/${a.id}`)
        .set(bearer(token))
        .send({ status: 'SUSPENDED' });
      const suspended = await admin().get('/api/v1/admin/apps?status=SUSPENDED&paginate=false');
      expect(suspended.status).toBe(200);
      expect(suspended.body.data.map((x: { id: number }) => x.id)).toContain(a.id);
      expect(suspended.body.data.every((x: { status: string }) => x.status === 'SUSPENDED')).toBe(
        true,
      );
      const all = await admin().get('/api/v1/admin/apps?paginate=false');
      const total = all.body.pagination.totalElements;
      const page = await admin().get('/api/v1/admin/apps?size=2&page=0&sortBy=id&order=asc');
      expect(page.body.pagination).toEqual({
        page: 0,
        size: 2,
        totalElements: total,
        totalPages: Math.ceil(total / 2),
      });
      expect(page.body.data.map((x: { id: number }) => x.id)).toEqual(
        all.body.data
          .map((x: { id: number }) => x.id)
          .sort((x: number, y: number) => x - y)
          .slice(0, 2),
      );
      expect((await admin().get('/api/v1/admin/apps?size=101')).status).toBe(400);
    });
  });
});
