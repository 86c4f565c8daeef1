import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  superAdminToken,
} from '../support/factories';
import { createInvoice } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Decisions section 15: app-scoped admin users (a merchant's own staff), and
 * admins acting on an app through the app routes with X-App-Id and X-Mode.
 * The route-by-route walk of every admin route as a scoped user is in
 * permissions.e2e-spec.ts.
 */
describe('app-scoped admins and admins acting on an app', () => {
  let t: TestApp;
  let root: string;
  let mine: CreatedApp;
  let theirs: CreatedApp;
  let staff: { id: number; email: string; token: string };

  const actingOn = (token: string, appId: number, mode: 'TEST' | 'LIVE') => ({
    ...bearer(token),
    'X-App-Id': String(appId),
    'X-Mode': mode,
  });
  const invoiceBody = (ref = 'cust-admin') => ({
    customerReference: ref,
    lineItems: [{ description: 'Consulting', qty: 1, unitAmountMinor: 250000 }],
  });
  const auditOf = async (userId: number, action: string) =>
    (
      await t.db.query(
        'SELECT action, target_id, actor_email, after FROM audit_events WHERE actor_user_id = $1 AND action = $2 ORDER BY id',
        [userId, action],
      )
    ).rows;

  beforeAll(async () => {
    t = await createTestApp();
    root = await superAdminToken(t);
    mine = await createApp(t, 'Mine');
    theirs = await createApp(t, 'Theirs');
    staff = await adminWith(
      t,
      ['apps:read', 'invoices:read', 'invoices:write', 'webhooks:operate', 'reconciliation:run'],
      { appIds: [mine.id] },
    );
  });
  afterAll(() => t.close());

  describe('the appIds of an admin user', () => {
    it('is in the user resource, the login response and GET /auth/me', async () => {
      const user = await t.http().get(`/api/v1/admin/users/${staff.id}`).set(bearer(root));
      expect(user.body.data.appIds).toEqual([mine.id]);
      const login = await t
        .http()
        .post('/api/v1/auth/login')
        .send({ email: staff.email, password: 'admin-password-123' });
      expect(login.body.data.appIds).toEqual([mine.id]);
      const me = await t.http().get('/api/v1/auth/me').set(bearer(staff.token));
      expect(me.status).toBe(200);
      expect(me.body.data.appIds).toEqual([mine.id]);
    });

    it('an unknown app, or a scope on a super admin, is 400 VALIDATION_FAILED naming appIds', async () => {
      for (const body of [
        { appIds: [mine.id, 99_999_999] },
        { appIds: [mine.id], superAdmin: true },
      ]) {
        const res = await t
          .http()
          .post('/api/v1/admin/users')
          .set(bearer(root))
          .send({
            email: `x${Math.random()}@joma.test`,
            name: 'X',
            password: 'x-password-1234',
            ...body,
          });
        expect(res.status).toBe(400);
        expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
        expect(res.body.meta.details[0].field).toBe('appIds');
      }
    });

    it('an unscoped user with users:write sets it, audited; a scoped one cannot touch users at all', async () => {
      const manager = await adminWith(t, ['users:read', 'users:write', 'invoices:read']);
      const clerk = await adminWith(t, ['invoices:read']);
      const set = await t
        .http()
        .patch(`/api/v1/admin/users/${clerk.id}`)
        .set(bearer(manager.token))
        .send({ appIds: [theirs.id] });
      expect(set.status).toBe(200);
      expect(set.body.data.appIds).toEqual([theirs.id]);
      const audit = await auditOf(manager.id, 'admin_user.updated');
      expect(audit).toHaveLength(1);
      expect(audit[0].after.appIds).toEqual([theirs.id]);
      // The scope applies to the clerk's session at once.
      const apps = await t.http().get('/api/v1/admin/invoices').set(bearer(clerk.token));
      expect(apps.status).toBe(200);

      const scopedManager = await adminWith(t, ['users:read', 'users:write'], {
        appIds: [mine.id],
      });
      for (const [method, path, body] of [
        ['patch', `/api/v1/admin/users/${scopedManager.id}`, { appIds: null }],
        ['patch', `/api/v1/admin/users/${clerk.id}`, { appIds: [mine.id] }],
        [
          'post',
          '/api/v1/admin/users',
          { email: 'n@joma.test', name: 'N', password: 'n-password-1234' },
        ],
        ['get', '/api/v1/admin/users', undefined],
      ] as const) {
        const res = await t.http()[method](path).set(bearer(scopedManager.token)).send(body);
        expect(res.status).toBe(403);
        expect(res.body.meta.errorCode).toBe('PERMISSION_DENIED');
      }
      const clerkNow = await t.http().get(`/api/v1/admin/users/${clerk.id}`).set(bearer(root));
      expect(clerkNow.body.data.appIds).toEqual([theirs.id]);
    });
  });

  describe('a scoped user in the admin routes', () => {
    it('sees only its apps, and another app answers 404', async () => {
      const list = await t.http().get('/api/v1/admin/apps?size=100').set(bearer(staff.token));
      expect(list.status).toBe(200);
      expect(list.body.data.map((a: { id: number }) => a.id)).toEqual([mine.id]);
      expect(
        (await t.http().get(`/api/v1/admin/apps/${mine.id}`).set(bearer(staff.token))).status,
      ).toBe(200);
      const other = await t.http().get(`/api/v1/admin/apps/${theirs.id}`).set(bearer(staff.token));
      expect(other.status).toBe(404);
      expect(other.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
      const gateways = await t
        .http()
        .get(`/api/v1/admin/apps/${theirs.id}/gateways`)
        .set(bearer(staff.token));
      expect(gateways.status).toBe(404);
    });

    it('lists are filtered to its apps; a filter on another app is 404', async () => {
      const own = await createInvoice(t, mine.TEST, { customerReference: 'own-1' });
      const foreign = await createInvoice(t, theirs.TEST, { customerReference: 'foreign-1' });
      const all = await t.http().get('/api/v1/admin/invoices?size=100').set(bearer(staff.token));
      expect(all.status).toBe(200);
      const ids = all.body.data.map((i: { id: number }) => i.id);
      expect(ids).toContain(own.id);
      expect(ids).not.toContain(foreign.id);
      expect(
        all.body.data.every((i: { applicationId: number }) => i.applicationId === mine.id),
      ).toBe(true);
      const filtered = await t
        .http()
        .get(`/api/v1/admin/invoices?applicationId=${theirs.id}`)
        .set(bearer(staff.token));
      expect(filtered.status).toBe(404);
      // The unscoped see both.
      const rootList = await t.http().get('/api/v1/admin/invoices?size=100').set(bearer(root));
      expect(rootList.body.data.map((i: { id: number }) => i.id)).toEqual(
        expect.arrayContaining([own.id, foreign.id]),
      );
    });

    it('routes about no one app are 403: creating apps, the audit log, a run over every app', async () => {
      const create = await t
        .http()
        .post('/api/v1/admin/apps')
        .set(bearer(staff.token))
        .send({ name: 'New' });
      expect(create.status).toBe(403);
      const scopedAll = await adminWith(t, ['audit:read', 'apps:write', 'reconciliation:run'], {
        appIds: [mine.id],
      });
      expect(
        (await t.http().get('/api/v1/admin/audit-events').set(bearer(scopedAll.token))).status,
      ).toBe(403);
      expect(
        (await t.http().post('/api/v1/admin/apps').set(bearer(scopedAll.token)).send({ name: 'N' }))
          .status,
      ).toBe(403);
      const everyApp = await t
        .http()
        .post('/api/v1/admin/reconciliation/runs?period=2026-01-02')
        .set(bearer(staff.token));
      expect(everyApp.status).toBe(403);
      const own = await t
        .http()
        .post(`/api/v1/admin/reconciliation/runs?period=2026-01-02&applicationId=${mine.id}`)
        .set(bearer(staff.token));
      expect(own.status).toBe(201);
      const foreignRun = await t
        .http()
        .post(`/api/v1/admin/reconciliation/runs?period=2026-01-02&applicationId=${theirs.id}`)
        .set(bearer(root));
      const rootEvery = await t
        .http()
        .post('/api/v1/admin/reconciliation/runs?period=2026-01-02')
        .set(bearer(root));
      const runs = await t
        .http()
        .get('/api/v1/admin/reconciliation/runs?size=100')
        .set(bearer(staff.token));
      const runIds = runs.body.data.map((r: { id: number }) => r.id);
      expect(runIds).toEqual([own.body.data.id]);
      expect(runs.body.pagination.totalElements).toBe(1);
      for (const id of [foreignRun.body.data.id, rootEvery.body.data.id]) {
        const res = await t
          .http()
          .get(`/api/v1/admin/reconciliation/runs/${id}`)
          .set(bearer(staff.token));
        expect(res.status).toBe(404);
      }
    });
  });

  describe('an admin acting on an app through the app routes', () => {
    it('creates an invoice in the app and mode the headers name, audited with the admin as actor', async () => {
      const res = await t
        .http()
        .post('/api/v1/invoices')
        .set(actingOn(staff.token, mine.id, 'LIVE'))
        .send(invoiceBody());
      expect(res.status).toBe(201);
      const row = await t.db.query('SELECT app_id, mode FROM invoices WHERE id = $1', [
        res.body.data.id,
      ]);
      expect(row.rows[0]).toEqual({ app_id: mine.id, mode: 'LIVE' });
      // The app's own LIVE key sees it; its TEST key does not.
      expect(
        (await t.http().get(`/api/v1/invoices/${res.body.data.id}`).set(asApp(mine.LIVE))).status,
      ).toBe(200);
      expect(
        (await t.http().get(`/api/v1/invoices/${res.body.data.id}`).set(asApp(mine.TEST))).status,
      ).toBe(404);
      const audit = await auditOf(staff.id, 'invoice.issued');
      expect(audit.map((a) => a.target_id)).toContain(String(res.body.data.id));
      expect(audit[0].actor_email).toBe(staff.email);
      expect(audit[0].after).toEqual({ applicationId: mine.id, mode: 'LIVE' });
    });

    it('an app call by the app key is not audited as an admin', async () => {
      const before = (
        await t.db.query(
          "SELECT count(*)::int AS n FROM audit_events WHERE action = 'invoice.issued'",
        )
      ).rows[0].n;
      await createInvoice(t, mine.TEST);
      const after = (
        await t.db.query(
          "SELECT count(*)::int AS n FROM audit_events WHERE action = 'invoice.issued'",
        )
      ).rows[0].n;
      expect(after).toBe(before);
    });

    it('without both headers: 400 VALIDATION_FAILED naming them; a bad token: 401', async () => {
      const none = await t.http().get('/api/v1/invoices').set(bearer(staff.token));
      expect(none.status).toBe(400);
      expect(none.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(none.body.meta.details.map((d: { field: string }) => d.field)).toEqual([
        'X-App-Id',
        'X-Mode',
      ]);
      const badMode = await t
        .http()
        .get('/api/v1/invoices')
        .set({ ...bearer(staff.token), 'X-App-Id': String(mine.id), 'X-Mode': 'test' });
      expect(badMode.status).toBe(400);
      expect(badMode.body.meta.details.map((d: { field: string }) => d.field)).toEqual(['X-Mode']);
      const bad = await t
        .http()
        .get('/api/v1/invoices')
        .set(actingOn('not-a-token', mine.id, 'TEST'));
      expect(bad.status).toBe(401);
      expect(bad.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
    });

    it('a signed-out session is refused', async () => {
      const gone = await adminWith(t, ['invoices:read']);
      await t.http().post('/api/v1/auth/logout').set(bearer(gone.token));
      const res = await t
        .http()
        .get('/api/v1/invoices')
        .set(actingOn(gone.token, mine.id, 'TEST'));
      expect(res.status).toBe(401);
    });

    it('reads need invoices:read, writes invoices:write, webhook endpoints webhooks:operate', async () => {
      const reader = await adminWith(t, ['invoices:read']);
      expect(
        (
          await t
            .http()
            .get('/api/v1/invoices')
            .set(actingOn(reader.token, mine.id, 'TEST'))
        ).status,
      ).toBe(200);
      const write = await t
        .http()
        .post('/api/v1/invoices')
        .set(actingOn(reader.token, mine.id, 'TEST'))
        .send(invoiceBody());
      expect(write.status).toBe(403);
      expect(write.body.meta.errorCode).toBe('PERMISSION_DENIED');
      expect(write.body.meta.message).toContain('invoices:write');
      const endpoints = await t
        .http()
        .get('/api/v1/webhook-endpoints')
        .set(actingOn(reader.token, mine.id, 'TEST'));
      expect(endpoints.status).toBe(403);
      expect(endpoints.body.meta.message).toContain('webhooks:operate');

      const created = await t
        .http()
        .post('/api/v1/webhook-endpoints')
        .set(actingOn(staff.token, mine.id, 'TEST'))
        .send({ url: 'https://example.com/hooks', events: ['invoice.paid'] });
      expect(created.status).toBe(201);
      expect(created.body.data.secret).toMatch(/^whsec_/);
      const audit = await auditOf(staff.id, 'webhook_endpoint.created');
      expect(audit.map((a) => a.target_id)).toContain(String(created.body.data.id));
      expect(JSON.stringify(audit)).not.toContain(created.body.data.secret);
    });

    it('another app than the scope allows is 404, even holding the permission', async () => {
      const res = await t
        .http()
        .get('/api/v1/invoices')
        .set(actingOn(staff.token, theirs.id, 'TEST'));
      expect(res.status).toBe(404);
      expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
      const missing = await t
        .http()
        .get('/api/v1/invoices')
        .set(actingOn(root, 99_999_999, 'TEST'));
      expect(missing.status).toBe(404);
    });

    it('test helpers stay TEST-only', async () => {
      const live = await t
        .http()
        .post('/api/v1/test-helpers/payments/1/settle')
        .set(actingOn(root, mine.id, 'LIVE'))
        .send({ outcome: 'success' });
      expect(live.status).toBe(403);
      expect(live.body.meta.errorCode).toBe('TEST_MODE_ONLY');
    });

    it('a double submit with one Idempotency-Key creates one invoice', async () => {
      const headers = { ...actingOn(staff.token, mine.id, 'TEST'), 'Idempotency-Key': 'dash-1' };
      const [a, b] = await Promise.all([
        t.http().post('/api/v1/invoices').set(headers).send(invoiceBody('idem')),
        t.http().post('/api/v1/invoices').set(headers).send(invoiceBody('idem')),
      ]);
      const ok = [a, b].filter((r) => r.status === 201);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      for (const r of [a, b]) expect([201, 409]).toContain(r.status);
      const ids = new Set(ok.map((r) => r.body.data.id));
      expect(ids.size).toBe(1);
      const count = await t.db.query(
        `SELECT count(*)::int AS n FROM invoices i JOIN customers c ON c.id = i.customer_id
          WHERE i.app_id = $1 AND c.external_id = 'idem'`,
        [mine.id],
      );
      expect(count.rows[0].n).toBe(1);
    });
  });
});
