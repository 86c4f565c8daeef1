import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiHeader, ApiSecurity } from '@nestjs/swagger';

import type { AdminPrincipal, AppPrincipal, JomaRequest } from '../common/http/request-context';
import { ApiErrors } from '../common/http/swagger';
import { AdminJwtGuard, REQUIRED_PERMISSIONS } from './guards/admin-jwt.guard';
import { APP_ROUTE_ADMIN_PERMISSIONS, AppKeyGuard } from './guards/app-key.guard';
import { Permission } from './permissions';

export const APP_KEY_SCHEME = 'appKey';
export const APP_SECRET_SCHEME = 'appSecret';
export const ADMIN_BEARER_SCHEME = 'adminBearer';

/** An admin route: bearer session plus every listed permission. */
export function AdminAuth(...permissions: Permission[]) {
  return applyDecorators(
    SetMetadata(REQUIRED_PERMISSIONS, permissions),
    // The document states it (x-permissions and a sentence: openapi-operations.ts).
    ApiExtension('x-permissions', permissions),
    UseGuards(AdminJwtGuard),
    ApiBearerAuth(ADMIN_BEARER_SCHEME),
    ApiErrors(401, 403),
  );
}

/** What an admin acting on an app through its routes needs (section 15), by kind of call. */
export interface AdminActingPermissions {
  /** GET routes. */
  read: Permission;
  /** Every other method. */
  write: Permission;
}

/** Invoices, payments, refunds, subscriptions, purchases, customers and the test helpers. */
export const INVOICE_ROUTES: AdminActingPermissions = {
  read: 'invoices:read',
  write: 'invoices:write',
};
/** Webhook endpoints, their deliveries and the events. */
export const WEBHOOK_ROUTES: AdminActingPermissions = {
  read: 'webhooks:operate',
  write: 'webhooks:operate',
};
/** Products, prices and benefits. */
export const CATALOG_ROUTES: AdminActingPermissions = {
  read: 'invoices:read',
  write: 'catalog:write',
};

/**
 * An app route: key + secret, the key's mode selecting the partition; or an
 * admin acting on the app (section 15, like Stripe's `Stripe-Account`):
 * `Authorization: Bearer <admin token>` with `X-App-Id` and `X-Mode`, needing
 * the permission `admin` names for the kind of call, within the admin's apps.
 */
export function AppAuth(admin: AdminActingPermissions = INVOICE_ROUTES) {
  return applyDecorators(
    SetMetadata(APP_ROUTE_ADMIN_PERMISSIONS, admin),
    // Becomes x-permissions by HTTP method when the document is finished.
    ApiExtension('x-acting-permissions', admin),
    UseGuards(AppKeyGuard),
    // One requirement holding both: the key AND the secret are needed.
    ApiSecurity({ [APP_KEY_SCHEME]: [], [APP_SECRET_SCHEME]: [] }),
    // Or an admin session acting on the app named by X-App-Id and X-Mode.
    ApiBearerAuth(ADMIN_BEARER_SCHEME),
    ApiHeader({
      name: 'X-App-Id',
      required: false,
      schema: { type: 'integer', minimum: 1 },
      description: `With an admin bearer token only: the app to act on (required then, with X-Mode). The admin needs ${admin.read} to read${admin.write === admin.read ? ' and write' : ` and ${admin.write} to write`}; another app's id is 404.`,
    }),
    ApiHeader({
      name: 'X-Mode',
      required: false,
      schema: { type: 'string', enum: ['TEST', 'LIVE'] },
      description: 'With an admin bearer token only: the mode to act in (required then).',
    }),
    // 400: an admin token without X-App-Id and X-Mode; 404: an app outside the admin's scope.
    // 429: over the app's rate limit in this mode (RATE_LIMIT_PER_SECOND).
    ApiErrors(400, 401, 403, 404, 429),
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

export { AppScoped, assertInScope, inScope, scopedAppIds } from './app-scope';
