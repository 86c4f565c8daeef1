import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';

import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { AdminPrincipal, JomaRequest } from '../../common/http/request-context';
import { ADMIN_JWT } from '../admin-jwt.strategy';
import { APP_SCOPED, AppScopedOptions, assertInScope } from '../app-scope';
import { hasPermissions, Permission } from '../permissions';

export const REQUIRED_PERMISSIONS = 'joma:required-permissions';

/**
 * Admin bearer token, then the permissions the route requires. Missing
 * header: 401 AUTHENTICATION_REQUIRED; bad/expired/revoked: 401
 * INVALID_CREDENTIALS; lacking a permission: 403 PERMISSION_DENIED; an
 * app-scoped user on a route not marked @AppScoped(): 403 as well.
 */
@Injectable()
export class AdminJwtGuard extends AuthGuard(ADMIN_JWT) {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<JomaRequest>();
    const header = req.headers.authorization;
    if (!header)
      throw new AppError(
        ErrorCode.AUTHENTICATION_REQUIRED,
        'Authorization: Bearer <token> is required',
      );
    if (!/^Bearer\s+\S+$/i.test(header))
      throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'Malformed bearer token');
    await super.canActivate(context);
    const required =
      this.reflector.getAllAndOverride<Permission[]>(REQUIRED_PERMISSIONS, [
        context.getHandler(),
        context.getClass(),
      ]) ?? [];
    const user = req.user as AdminPrincipal;
    if (!hasPermissions(user, required)) {
      throw new AppError(
        ErrorCode.PERMISSION_DENIED,
        `Requires permission: ${required.join(', ')}`,
      );
    }
    if (user.appIds === null) return true;
    const scoped = this.reflector.getAllAndOverride<AppScopedOptions | undefined>(APP_SCOPED, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!scoped) {
      throw new AppError(
        ErrorCode.PERMISSION_DENIED,
        'Permission denied: this route is not about one of your apps (app-scoped user)',
      );
    }
    if (scoped.appParam !== undefined) {
      const raw = String(req.params[scoped.appParam] ?? '');
      assertInScope(user, /^\d{1,15}$/.test(raw) ? Number(raw) : null, 'App');
    }
    return true;
  }

  /**
   * passport-jwt reports a bad token as no user; `err` is a failure of the
   * session check itself (the database unreachable or too slow), which the
   * exception filter answers as it deserves (503 with Retry-After), never as
   * "invalid credentials" that would send a client to log in again.
   */
  override handleRequest<T>(err: unknown, user: T): T {
    if (err) throw err;
    if (!user) throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'Invalid or expired token');
    return user;
  }
}
