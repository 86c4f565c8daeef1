import { adminWith, bearer, createApp, superAdminToken } from '../support/factories';
import { createTestApp, SUPER_ADMIN, TestApp } from '../support/test-app';

/**
 * Who may change whom among admins: a `users:write` admin must not be able
 * to make itself (or anyone) super admin, grant what it does not hold,
 * change its own permissions, or touch a super admin; and no change may
 * leave the service without an ACTIVE super admin.
 */
describe('admin privilege boundaries', () => {
  let t: TestApp;
  let root: string;
  let rootId: number;

  beforeAll(async () => {
    t = await createTestApp();
    root = await superAdminToken(t);
    rootId = (await t.db.query('SELECT id FROM admin_users WHERE email = $1', [SUPER_ADMIN.email]))
      .rows[0].id as number;
  });
  afterAll(() => t.close());

  const patch = (token: string, id: number, body: Record<string, unknown>) =>
    t.http().patch(`/api/v1/admin/users/${id}`).set(bearer(token)).send(body);
  const create = (token: string, body: Record<string, unknown>) =>
    t
      .http()
      .post('/api/v1/admin/users')
      .set(bearer(token))
      .send({ name: 'New', password: 'a-long-password-123', ...body });
  const row = async (id: number) =>
    (
      await t.db.query('SELECT super_admin, permissions, status FROM admin_users WHERE id = $1', [
        id,
      ])
    ).rows[0] as { super_admin: boolean; permissions: string[]; status: string };

  it('a users:write admin cannot make itself super admin, nor grant itself anything (403, nothing changes)', async () => {
    const me = await adminWith(t, ['users:read', 'users:write']);
    const up = await patch(me.token, me.id, { superAdmin: true });
    expect(up.status).toBe(403);
    expect(up.body.meta.errorCode).toBe('PERMISSION_DENIED');
    const grant = await patch(me.token, me.id, {
      permissions: ['users:read', 'users:write', 'apps:write'],
    });
    expect(grant.status).toBe(403);
    const drop = await patch(me.token, me.id, { permissions: ['users:read'] });
    expect(drop.status).toBe(403);
    expect(await row(me.id)).toEqual({
      super_admin: false,
      permissions: ['users:read', 'users:write'],
      status: 'ACTIVE',
    });
  });

  it('a users:write admin cannot create a super admin, nor grant a permission it does not hold', async () => {
    const me = await adminWith(t, ['users:read', 'users:write', 'apps:read']);
    const sup = await create(me.token, { email: 'sneaky-super@joma.test', superAdmin: true });
    expect(sup.status).toBe(403);
    const wide = await create(me.token, {
      email: 'sneaky-wide@joma.test',
      permissions: ['apps:write'],
    });
    expect(wide.status).toBe(403);
    expect(wide.body.meta.message).toContain('apps:write');
    const fine = await create(me.token, { email: 'fine@joma.test', permissions: ['apps:read'] });
    expect(fine.status).toBe(201);
    const n = await t.db.query(
      `SELECT count(*)::int AS n FROM admin_users WHERE email LIKE 'sneaky-%'`,
    );
    expect(n.rows[0].n).toBe(0);
    // ... and may grant another user what it holds, but not more.
    expect(
      (await patch(me.token, fine.body.data.id, { permissions: ['apps:read', 'users:read'] }))
        .status,
    ).toBe(200);
    expect(
      (await patch(me.token, fine.body.data.id, { permissions: ['refunds:approve'] })).status,
    ).toBe(403);
  });

  it('a users:write admin cannot disable, demote or rename a super admin', async () => {
    const me = await adminWith(t, ['users:read', 'users:write']);
    for (const body of [
      { status: 'DISABLED' },
      { superAdmin: false },
      { name: 'Pwned' },
      { permissions: [] },
    ]) {
      const res = await patch(me.token, rootId, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 403]);
    }
    expect(await row(rootId)).toMatchObject({ super_admin: true, status: 'ACTIVE' });
  });

  describe("a users:write admin and other users' apps (decisions 14 as amended)", () => {
    const scopeOf = async (id: number) =>
      (await t.db.query('SELECT permissions, app_ids FROM admin_users WHERE id = $1', [id]))
        .rows[0] as { permissions: string[]; app_ids: string[] | null };
    const changesBy = async (id: number) =>
      (
        await t.db.query('SELECT count(*)::int AS n FROM audit_events WHERE actor_user_id = $1', [
          id,
        ])
      ).rows[0].n as number;
    const refused = (res: { status: number; body: { meta: Record<string, string> } }) => {
      expect(res.status).toBe(403);
      expect(res.body.meta.errorCode).toBe('PERMISSION_DENIED');
      return res.body.meta.message;
    };

    it('cannot widen, clear or change the apps of a user holding a permission it lacks (403, nothing written)', async () => {
      const [a, b] = [await createApp(t), await createApp(t)];
      const me = await adminWith(t, ['users:read', 'users:write', 'invoices:read']);
      const approver = await adminWith(t, ['invoices:read', 'refunds:approve'], {
        appIds: [a.id],
      });
      const before = await scopeOf(approver.id);
      for (const body of [
        { appIds: null },
        { appIds: [a.id, b.id] },
        { appIds: [b.id] },
        // Dropping the permission in the same change does not help.
        { appIds: null, permissions: ['invoices:read'] },
      ]) {
        const message = refused(await patch(me.token, approver.id, body));
        expect(message).toBe(
          'Permission denied: you may not change the apps of a user who holds permissions you do not hold (refunds:approve)',
        );
      }
      expect(await scopeOf(approver.id)).toEqual(before);
      expect(await changesBy(me.id)).toBe(0);
      // Its apps unchanged, a change of what it may grant stays possible.
      expect(
        (await patch(me.token, approver.id, { permissions: ['refunds:approve'] })).status,
      ).toBe(200);
    });

    it('cannot grant a permission it lacks, whatever the apps (403, nothing written)', async () => {
      const a = await createApp(t);
      const me = await adminWith(t, ['users:read', 'users:write', 'invoices:read']);
      const clerk = await adminWith(t, ['invoices:read'], { appIds: [a.id] });
      const before = await scopeOf(clerk.id);
      for (const body of [
        { permissions: ['invoices:read', 'invoices:write'] },
        { permissions: ['invoices:read', 'invoices:write'], appIds: null },
      ]) {
        expect(refused(await patch(me.token, clerk.id, body))).toBe(
          'Permission denied: you may grant only permissions you hold (not invoices:write)',
        );
      }
      const created = await create(me.token, {
        email: `everywhere-${Date.now()}@joma.test`,
        permissions: ['invoices:write'],
        appIds: null,
      });
      refused(created);
      expect(await scopeOf(clerk.id)).toEqual(before);
      expect(await changesBy(me.id)).toBe(0);
    });

    it('may set the apps of a user holding only permissions it holds (clearing them included), audited', async () => {
      const [a, b] = [await createApp(t), await createApp(t)];
      const me = await adminWith(t, ['users:read', 'users:write', 'invoices:read']);
      const clerk = await adminWith(t, ['invoices:read'], { appIds: [a.id] });
      const moved = await patch(me.token, clerk.id, { appIds: [b.id] });
      expect(moved.status).toBe(200);
      expect(moved.body.data.appIds).toEqual([b.id]);
      const cleared = await patch(me.token, clerk.id, { appIds: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.data.appIds).toBeNull();
      expect(await changesBy(me.id)).toBe(2);
    });

    it('cannot re-enable a disabled user holding a permission it lacks (403, nothing written); one within its own powers it may', async () => {
      const a = await createApp(t);
      const me = await adminWith(t, ['users:read', 'users:write', 'invoices:read']);
      const approver = await adminWith(t, ['invoices:read', 'refunds:approve'], {
        appIds: [a.id],
      });
      const clerk = await adminWith(t, ['invoices:read'], { appIds: [a.id] });
      for (const user of [approver, clerk])
        expect((await patch(root, user.id, { status: 'DISABLED' })).status).toBe(200);
      // Re-enabling gives back everything the user holds: judged as granting it.
      for (const body of [{ status: 'ACTIVE' }, { status: 'ACTIVE', name: 'Approver' }]) {
        expect(refused(await patch(me.token, approver.id, body))).toBe(
          'Permission denied: re-enabling a user grants what it holds: you may grant only permissions you hold (not refunds:approve)',
        );
      }
      expect(await row(approver.id)).toMatchObject({ status: 'DISABLED' });
      expect(await changesBy(me.id)).toBe(0);
      const back = await patch(me.token, clerk.id, { status: 'ACTIVE' });
      expect(back.status).toBe(200);
      expect(back.body.data).toMatchObject({ status: 'ACTIVE', appIds: [a.id] });
      expect(await changesBy(me.id)).toBe(1);
    });

    it('an app-scoped admin sets no appIds and cannot give a user more apps than its own', async () => {
      const a = await createApp(t);
      const scoped = await adminWith(t, ['users:read', 'users:write', 'invoices:read'], {
        appIds: [a.id],
      });
      const clerk = await adminWith(t, ['invoices:read'], { appIds: [a.id] });
      const before = await scopeOf(clerk.id);
      for (const res of [
        await patch(scoped.token, clerk.id, { appIds: null }),
        await patch(scoped.token, clerk.id, { appIds: [a.id] }),
        await create(scoped.token, { email: `scoped-new-${Date.now()}@joma.test` }),
      ])
        refused(res);
      expect(await scopeOf(clerk.id)).toEqual(before);
      expect(await changesBy(scoped.id)).toBe(0);
    });
  });

  it('the last active super admin cannot be demoted or disabled (409); with two, one can', async () => {
    const alone = await patch(root, rootId, { superAdmin: false });
    expect(alone.status).toBe(409);
    expect(alone.body.meta.errorCode).toBe('INVALID_STATE');
    expect((await patch(root, rootId, { status: 'DISABLED' })).status).toBe(409);

    const second = await create(root, { email: 'second-super@joma.test', superAdmin: true });
    expect(second.status).toBe(201);
    // Both demoted at once: exactly one may go.
    const both = await Promise.all([
      patch(root, second.body.data.id, { superAdmin: false }),
      patch(root, rootId, { superAdmin: false }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const left = await t.db.query(
      `SELECT count(*)::int AS n FROM admin_users WHERE super_admin AND status = 'ACTIVE'`,
    );
    expect(left.rows[0].n).toBe(1);
  });
});
