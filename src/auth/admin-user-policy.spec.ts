import { AdminActor, AdminTarget, assertMayChangeAdmin } from './admin-user-policy';

/** Decisions 14 and 15 as amended: whose apps a non-super admin may set. */
describe('assertMayChangeAdmin: apps', () => {
  const manager: AdminActor = {
    userId: 1,
    superAdmin: false,
    permissions: ['users:write', 'invoices:read'],
    appIds: null,
  };
  const scoped: AdminActor = { ...manager, appIds: [7] };
  const root: AdminActor = { ...manager, superAdmin: true, permissions: [] };
  const approver: AdminTarget = {
    id: 2,
    superAdmin: false,
    status: 'ACTIVE',
    permissions: ['invoices:read', 'refunds:approve'],
    appIds: [7],
  };
  const clerk: AdminTarget = { ...approver, permissions: ['invoices:read'] };
  const denied = (actor: AdminActor, target: AdminTarget | null, change: object) => {
    try {
      assertMayChangeAdmin(actor, target, change);
    } catch (err) {
      return (err as { code: string; message: string }).message;
    }
    return null;
  };

  it('the apps of a user holding a permission the actor lacks: no change, however small', () => {
    for (const appIds of [null, [7, 8], [8]])
      expect(denied(manager, approver, { appIds })).toMatch(
        /change the apps of a user who holds permissions you do not hold \(refunds:approve\)/,
      );
    expect(denied(manager, approver, { appIds: [7] })).toBeNull(); // the same apps: no change
    expect(denied(manager, approver, { name: 'Renamed' })).toBeNull();
    expect(denied(root, approver, { appIds: null })).toBeNull();
  });

  it('the apps of a user holding only what the actor holds: any, clearing included', () => {
    expect(denied(manager, clerk, { appIds: null })).toBeNull();
    expect(denied(manager, clerk, { appIds: [8] })).toBeNull();
  });

  it('an app-scoped actor sets no appIds, and a new user of its own has every app: refused', () => {
    expect(denied(scoped, clerk, { appIds: [7] })).toMatch(/app-scoped user may not set appIds/);
    expect(denied(scoped, null, { permissions: ['invoices:read'] })).toMatch(
      /may not give a user every app/,
    );
  });
});
