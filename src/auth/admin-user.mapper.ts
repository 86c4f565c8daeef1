import type { AdminPrincipal } from '../common/http/request-context';
import type { AdminUser } from './admin-user.entity';
import type { IssuedSession } from './auth.service';
import type { AdminUserDto, CurrentUserDto, SessionDto } from './dto/auth.dto';

export function toAdminUserDto(u: AdminUser): AdminUserDto {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    status: u.status,
    lastLoginAt: u.lastLoginAt ? u.lastLoginAt.toISOString() : null,
    superAdmin: u.superAdmin,
    permissions: u.permissions,
    appIds: u.appIds,
    createdAt: u.createdAt.toISOString(),
  };
}

export function toCurrentUserDto(p: AdminPrincipal): CurrentUserDto {
  return {
    userId: p.userId,
    email: p.email,
    name: p.name,
    superAdmin: p.superAdmin,
    permissions: p.permissions,
    appIds: p.appIds,
  };
}

export function toSessionDto(s: IssuedSession): SessionDto {
  return {
    token: s.token,
    tokenType: s.tokenType,
    expiresAt: s.expiresAt.toISOString(),
    userId: s.user.id,
    email: s.user.email,
    name: s.user.name,
    superAdmin: s.user.superAdmin,
    permissions: s.user.permissions,
    appIds: s.user.appIds,
  };
}
