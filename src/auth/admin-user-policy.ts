import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { AdminUserStatus } from './admin-user.entity';

/** Who is acting (the logged-in admin). */
export interface AdminActor {
  userId: number;
  superAdmin: boolean;
  permissions: readonly string[];
  /** null = every app; a list = an app-scoped user (section 15). */
  appIds: readonly number[] | null;
}

/** The admin user being created (no id yet) or changed, as it is now. */
export interface AdminTarget {
  id?: number;
  superAdmin: boolean;
  status: AdminUserStatus;
  permissions: readonly string[];
  /** null = every app (also what a new user without `appIds` gets). */
  appIds?: readonly number[] | null;
}

export interface AdminChange {
  superAdmin?: boolean;
  permissions?: readonly string[];
  status?: AdminUserStatus;
  name?: string;
  appIds?: readonly number[] | null;
}

const denied = (why: string) =>
  new AppError(ErrorCode.PERMISSION_DENIED, `Permission denied: ${why}`);

/**
 * Who may change whom, as one pure rule (no I/O): only a super admin may
 * create a super admin, set or clear `superAdmin`, or change a super admin
 * in any way; anyone else may grant only permissions they hold themselves
 * and may not change their own permissions; only an unscoped user (super
 * admin or not) sets `appIds`. Anyone else than a super admin may not
 * change the apps of a user who holds (now or after the change) a
 * permission it lacks (that would take the permission to other apps: decisions 14 as
 * amended), nor give a user apps beyond its own scope (clearing `appIds`,
 * null = every app, is the widest). Re-enabling a DISABLED user gives it
 * back everything it holds, so it is judged as granting that: every
 * permission it would hold and its apps must be within the actor's, as
 * for a new user. Throws 403 PERMISSION_DENIED.
 * (That a change leaves some ACTIVE super admin is checked by the service,
 * which sees the other users.)
 */
export function assertMayChangeAdmin(
  actor: AdminActor,
  target: AdminTarget | null,
  change: AdminChange,
): void {
  // Only an unscoped user sets a scope, its own included (section 15).
  if (change.appIds !== undefined && actor.appIds !== null) {
    throw denied('an app-scoped user may not set appIds');
  }
  if (actor.superAdmin) return;
  const creating = target === null;
  const current: AdminTarget = target ?? {
    superAdmin: false,
    status: 'ACTIVE',
    permissions: [],
  };
  // Re-enabling hands back every permission and app the user holds: a grant of all of it.
  const reenabling = !creating && current.status === 'DISABLED' && change.status === 'ACTIVE';
  const regranted = reenabling ? 're-enabling a user grants what it holds: ' : '';
  if (current.superAdmin) throw denied('only a super admin may change a super admin');
  if (change.superAdmin !== undefined && change.superAdmin !== current.superAdmin) {
    throw denied(
      creating
        ? 'only a super admin may create a super admin'
        : 'only a super admin may set superAdmin',
    );
  }
  const permissionsAfter = change.permissions ?? current.permissions;
  if (change.permissions !== undefined) {
    const removed = current.permissions.filter((p) => !change.permissions!.includes(p));
    const added = change.permissions.filter((p) => !current.permissions.includes(p));
    if (!creating && target?.id === actor.userId && added.length + removed.length > 0) {
      throw denied('you may not change your own permissions');
    }
  }
  const granted = reenabling
    ? permissionsAfter
    : permissionsAfter.filter((p) => !current.permissions.includes(p));
  const notHeld = granted.filter((p) => !actor.permissions.includes(p));
  if (notHeld.length > 0) {
    throw denied(
      `${regranted}you may grant only permissions you hold (not ${[...new Set(notHeld)].join(', ')})`,
    );
  }
  const appsBefore = creating ? null : (current.appIds ?? null);
  const appsAfter = change.appIds !== undefined ? change.appIds : appsBefore;
  // A new user without appIds gets every app: that too is giving it apps (and so is re-enabling one).
  const appsChanged = creating || !sameApps(appsBefore, appsAfter);
  if (!appsChanged && !reenabling) return;
  if (!withinApps(appsAfter, actor.appIds)) {
    throw denied(
      regranted +
        (appsAfter === null
          ? 'you may not give a user every app (appIds null) beyond your own apps'
          : `you may not give a user apps beyond your own (not ${appsAfter
              .filter((id) => !actor.appIds!.includes(id))
              .join(', ')})`),
    );
  }
  if (!appsChanged) return;
  // What the user holds now or would hold: dropping a permission in the same change does not help.
  const held = [...current.permissions, ...(change.permissions ?? [])];
  const lacking = held.filter((p) => !actor.permissions.includes(p));
  if (lacking.length > 0) {
    throw denied(
      `you may not change the apps of a user who holds permissions you do not hold (${[
        ...new Set(lacking),
      ].join(', ')})`,
    );
  }
}

/** Whether two scopes are the same set of apps (null = every app). */
function sameApps(a: readonly number[] | null, b: readonly number[] | null): boolean {
  if (a === null || b === null) return a === b;
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((id) => y.has(id));
}

/** Whether `apps` stays within `scope` (null = every app). */
function withinApps(apps: readonly number[] | null, scope: readonly number[] | null): boolean {
  if (scope === null) return true;
  return apps !== null && apps.every((id) => scope.includes(id));
}

/** Whether the user counts as an ACTIVE super admin after the change. */
export function activeSuperAdminAfter(target: AdminTarget, change: AdminChange): boolean {
  return (change.superAdmin ?? target.superAdmin) && (change.status ?? target.status) === 'ACTIVE';
}
