import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';

import type { AdminPrincipal, AppPrincipal, JomaRequest } from '../common/http/request-context';
import { ApiErrors } from '../common/http/swagger';
import { AdminJwtGuard, REQUIRED_PERMISSIONS } from './guards/admin-jwt.guard';
import { AppKeyGuard } from './guards/app-key.guard';
import { Permission } from './permissions';

export const APP_KEY_SCHEME = 'appKey';
export const APP_SECRET_SCHEME = 'appSecret';
export const ADMIN_BEARER_SCHEME = 'adminBearer';

/** An admin route: bearer session plus every listed permission. */
export function AdminAuth(...permissions: Permission[]) {
  return applyDecorators(
    SetMetadata(REQUIRED_PERMISSIONS, permissions),
    UseGuards(AdminJwtGuard),
    ApiBearerAuth(ADMIN_BEARER_SCHEME),
    ApiErrors(401, 403),
  );
}

/** An app route: key + secret; the key's mode selects the partition. */
export function AppAuth() {
  return applyDecorators(
    UseGuards(AppKeyGuard),
    // One requirement holding both: the key AND the secret are needed.
    ApiSecurity({ [APP_KEY_SCHEME]: [], [APP_SECRET_SCHEME]: [] }),
    // 429: over the app's rate limit in this mode (RATE_LIMIT_PER_SECOND).
    ApiErrors(401, 403, 429),
  );
}

export const CurrentApp = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): AppPrincipal => {
    const app = ctx.switchToHttp().getRequest<JomaRequest>().principalApp;
    if (!app) throw new Error('CurrentApp used on a route without @AppAuth()');
    return app;
  },
);

export const CurrentAdmin = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): AdminPrincipal => {
    const user = ctx.switchToHttp().getRequest<JomaRequest>().user;
    if (!user) throw new Error('CurrentAdmin used on a route without @AdminAuth()');
    return user;
  },
);
