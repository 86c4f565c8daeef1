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

  it("re-enabling a disabled user grants what it holds: its permissions and apps must be within the actor's", () => {
    const disabled = (t: AdminTarget): AdminTarget => ({ ...t, status: 'DISABLED' });
    expect(denied(manager, disabled(approver), { status: 'ACTIVE' })).toBe(
      'Permission denied: re-enabling a user grants what it holds: you may grant only permissions you hold (not refunds:approve)',
    );
    expect(denied(manager, disabled(clerk), { status: 'ACTIVE' })).toBeNull();
    // The apps it would have again: beyond a scoped actor's own, refused.
    expect(denied(scoped, disabled({ ...clerk, appIds: null }), { status: 'ACTIVE' })).toMatch(
      /re-enabling a user grants what it holds: you may not give a user every app/,
    );
    expect(denied(scoped, disabled({ ...clerk, appIds: [7, 8] }), { status: 'ACTIVE' })).toMatch(
      /re-enabling a user grants what it holds: you may not give a user apps beyond your own \(not 8\)/,
    );
    expect(denied(scoped, disabled(clerk), { status: 'ACTIVE' })).toBeNull();
    // Disabling, or a user already ACTIVE: nothing is handed back.
    expect(denied(manager, approver, { status: 'ACTIVE' })).toBeNull();
    expect(denied(manager, approver, { status: 'DISABLED' })).toBeNull();
    expect(denied(root, disabled(approver), { status: 'ACTIVE' })).toBeNull();
  });

  it('an app-scoped actor sets no appIds, and a new user of its own has every app: refused', () => {
    expect(denied(scoped, clerk, { appIds: [7] })).toMatch(/app-scoped user may not set appIds/);
    expect(denied(scoped, null, { permissions: ['invoices:read'] })).toMatch(
      /may not give a user every app/,
    );
  });
});
