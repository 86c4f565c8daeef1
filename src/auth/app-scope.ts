import { applyDecorators, SetMetadata } from '@nestjs/common';

import { AppError } from '../common/errors/app-error';
import { ApiErrors } from '../common/http/swagger';

export const APP_SCOPED = 'joma:app-scoped';

/** Whose scope is checked: the signed-in admin (null appIds = every app). */
export interface Scoped {
  appIds: readonly number[] | null;
}

/**
 * Marks an admin route that app-scoped users (decisions section 15) may
 * call, because its handler keeps them to their apps with the helpers
 * below. Every other admin route answers them 403 PERMISSION_DENIED
 * (AdminJwtGuard): a new route is closed to them until it says otherwise.
 */
export const AppScoped = (opts: AppScopedOptions = {}) =>
  // 404: another app's object, or an applicationId filter outside the user's apps.
  applyDecorators(SetMetadata(APP_SCOPED, opts), ApiErrors(404));

export interface AppScopedOptions {
  /**
   * The path parameter that is itself an app id (`/admin/apps/:id/...`): the
   * guard answers 404 `App not found` for another app before anything else
   * (the body is not even validated).
   */
  appParam?: string;
}

export function inScope(who: Scoped, appId: number | null): boolean {
  return who.appIds === null || (appId !== null && who.appIds.includes(appId));
}

/** Another app's object answers as if it did not exist: 404 `<what> not found`. */
export function assertInScope(who: Scoped, appId: number | null, what: string): void {
  if (!inScope(who, appId)) throw AppError.notFound(what);
}

/**
 * The app filter a list adds for a scoped user: undefined for an unscoped
 * one (no filter), the user's apps otherwise. An `applicationId` filter
 * outside the scope answers 404 (section 15).
 */
export function scopedAppIds(who: Scoped, applicationId?: number | null): number[] | undefined {
  if (who.appIds === null) return undefined;
  if (applicationId !== undefined && applicationId !== null)
    assertInScope(who, applicationId, 'Application');
  return [...who.appIds];
}
