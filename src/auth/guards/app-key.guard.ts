import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import { AppError, type ErrorDetail } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { AppPrincipal, JomaRequest } from '../../common/http/request-context';
import { RateLimiter } from '../../common/rate-limit/rate-limiter';
import { AppCredentialsService } from '../app-credentials.service';
import { assertInScope } from '../app-scope';
import { AuthService } from '../auth.service';
import { hasPermissions, Permission } from '../permissions';

/** Set by AppAuth(): what an admin acting on the app needs, by kind of call. */
export const APP_ROUTE_ADMIN_PERMISSIONS = 'joma:app-route-admin-permissions';

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * X-Api-Key + X-Api-Secret: resolves the app and the mode of the call, then
 * takes the call from the app's rate limit in that mode (429 beyond it).
 * `appCallLimit` does both before the body is read when this replica has
 * the key cached; then there is nothing left to do here.
 *
 * Without a key, an admin bearer token with `X-App-Id` and `X-Mode` acts on
 * that app and mode (decisions section 15): the session is checked as on
 * the admin routes, then the permission the route names for reads or
 * writes, then the admin's app scope (another app: 404). The call then runs
 * exactly as the app's own would, with the admin as the audit log's actor.
 */
@Injectable()
export class AppKeyGuard implements CanActivate {
  constructor(
    private readonly credentials: AppCredentialsService,
    private readonly limits: RateLimiter,
    private readonly auth: AuthService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<JomaRequest>();
    // Already authenticated from this replica's cache, and counted, before the body was read.
    if (req.principalApp) return true;
    const bearer = BEARER.exec(req.headers.authorization ?? '');
    const app =
      !req.headers['x-api-key'] && bearer
        ? await this.actingAdmin(context, req, bearer[1])
        : await this.credentials.authenticate(
            req.headers['x-api-key'] as string | undefined,
            req.headers['x-api-secret'] as string | undefined,
          );
    this.limits.takeApp(app.appId, app.mode);
    req.principalApp = app;
    return true;
  }

  private async actingAdmin(
    context: ExecutionContext,
    req: JomaRequest,
    token: string,
  ): Promise<AppPrincipal> {
    const admin = await this.auth.principalForToken(token);
    const rawApp = req.headers['x-app-id'];
    const rawMode = req.headers['x-mode'];
    const appId = typeof rawApp === 'string' && /^[1-9]\d{0,14}$/.test(rawApp) ? Number(rawApp) : 0;
    const mode = rawMode === 'TEST' || rawMode === 'LIVE' ? rawMode : null;
    const details: ErrorDetail[] = [];
    if (!appId)
      details.push({ field: 'X-App-Id', message: 'the id of the app to act on is required' });
    if (!mode) details.push({ field: 'X-Mode', message: 'TEST or LIVE is required' });
    if (details.length > 0) {
      throw new AppError(
        ErrorCode.VALIDATION_FAILED,
        'An admin token on an app route needs the X-App-Id and X-Mode headers',
        details,
      );
    }
    const needs = this.reflector.getAllAndOverride<{ read: Permission; write: Permission }>(
      APP_ROUTE_ADMIN_PERMISSIONS,
      [context.getHandler(), context.getClass()],
    );
    const needed = req.method === 'GET' || req.method === 'HEAD' ? needs.read : needs.write;
    if (!hasPermissions(admin, [needed])) {
      throw new AppError(ErrorCode.PERMISSION_DENIED, `Requires permission: ${needed}`);
    }
    assertInScope(admin, appId, 'App');
    const app = await this.credentials.principalOf(appId, mode!);
    if (!app) throw AppError.notFound('App');
    req.user = admin;
    return app;
  }
}
