import { adminWith, bearer, createApp, superAdminToken } from '../support/factories';
import { createTestApp, SUPER_ADMIN, TestApp } from '../support/test-app';

/**
 * Who changed what: admin changes and lock-outs land in the append-only
 * audit log, in the same transaction, with actor and before/after (changed
 * fields only, never a secret); admins with audit:read list it.
 */
describe('audit log', () => {
  let t: TestApp;
  let root: string;

  beforeAll(async () => {
    t = await createTestApp();
    root = await superAdminToken(t);
  });
  afterAll(() => t.close());

  const events = (query = '', token = root) =>
    t.http().get(`/api/v1/admin/audit-events${query}`).set(bearer(token));

  it('a permission change: actor, action, target, before and after of the changed fields, address and request id', async () => {
    const user = await adminWith(t, ['apps:read']);
    const res = await t
      .http()
      .patch(`/api/v1/admin/users/${user.id}`)
      .set(bearer(root))
      .set('X-Request-Id', 'audit-req-1')
      .send({ permissions: ['apps:read', 'invoices:read'] });
    expect(res.status).toBe(200);
    const list = await events(`?action=admin_user.updated&targetId=${user.id}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const rootId = (
      await t.db.query('SELECT id FROM admin_users WHERE email = $1', [SUPER_ADMIN.email])
    ).rows[0].id;
    expect(list.body.data[0]).toMatchObject({
      actorUserId: rootId,
      actorEmail: SUPER_ADMIN.email,
      action: 'admin_user.updated',
      targetType: 'admin_user',
      targetId: String(user.id),
      before: { permissions: ['apps:read'] },
      after: { permissions: ['apps:read', 'invoices:read'] },
      clientAddress: expect.stringMatching(/127\.0\.0\.1/),
      requestId: 'audit-req-1',
    });
  });

  it('credentials rotated and settings changed are audited without any secret', async () => {
    const app = await createApp(t);
    await t
      .http()
      .post(`/api/v1/admin/apps/${app.id}/credentials/LIVE/rotate`)
      .set(bearer(root))
      .send();
    await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/settings`)
      .set(bearer(root))
      .send({ paymentExpiryMinutes: 45 });
    const list = await events(`?targetType=app&targetId=${app.id}`);
    expect(list.body.data.map((e: { action: string }) => e.action)).toEqual([
      'app.settings_updated',
      'app.credentials_rotated',
      'app.created',
    ]);
    expect(list.body.data[0]).toMatchObject({
      before: { paymentExpiryMinutes: 30 },
      after: { paymentExpiryMinutes: 45 },
    });
    expect(JSON.stringify(list.body.data)).not.toMatch(/sk_(test|live)_/);
    expect(list.body.data[1].after).toEqual({
      mode: 'LIVE',
      apiKey: expect.stringMatching(/^pk_live_/),
    });
  });

  it('admin catalog changes are audited; the same change made with an app key is not an admin action', async () => {
    const app = await createApp(t);
    const viaAdmin = await t
      .http()
      .post(`/api/v1/admin/products?applicationId=${app.id}&mode=TEST`)
      .set(bearer(root))
      .send({ name: 'Audited plan' });
    expect(viaAdmin.status).toBe(201);
    const viaApp = await t
      .http()
      .post('/api/v1/products')
      .set({ 'X-Api-Key': app.TEST.apiKey, 'X-Api-Secret': app.TEST.apiSecret })
      .send({ name: 'App plan' });
    expect(viaApp.status).toBe(201);
    await t
      .http()
      .post(`/api/v1/admin/products/${viaAdmin.body.data.id}/archive`)
      .set(bearer(root))
      .send();
    const list = await events('?targetType=product');
    const mine = list.body.data.filter((e: { targetId: string }) =>
      [String(viaAdmin.body.data.id), String(viaApp.body.data.id)].includes(e.targetId),
    );
    expect(mine.map((e: { action: string; targetId: string }) => [e.action, e.targetId])).toEqual([
      ['product.archived', String(viaAdmin.body.data.id)],
      ['product.created', String(viaAdmin.body.data.id)],
    ]);
  });

  it('a lock-out is audited with no actor and no email', async () => {
    const victim = await adminWith(t, []);
    for (let i = 0; i < 5; i++) {
      await t
        .http()
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', '198.51.100.77')
        .send({ email: victim.email, password: `wrong-${i}` });
    }
    const list = await events('?action=login.locked');
    expect(list.body.data.length).toBeGreaterThanOrEqual(1);
    expect(list.body.data[0]).toMatchObject({
      actorUserId: null,
      targetType: 'login_key',
      targetId: 'email_address',
    });
    expect(JSON.stringify(list.body.data)).not.toContain(victim.email);
  });

  it('needs audit:read; the log cannot be rewritten, not even by the database user', async () => {
    const reader = await adminWith(t, ['audit:read']);
    const other = await adminWith(t, ['users:read']);
    expect((await events('', reader.token)).status).toBe(200);
    expect((await events('', other.token)).status).toBe(403);
    await expect(t.db.query(`UPDATE audit_events SET action = 'forged'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(t.db.query('DELETE FROM audit_events')).rejects.toThrow(/append-only/);
    await expect(t.db.query('TRUNCATE audit_events')).rejects.toThrow(/append-only/);
  });
});
