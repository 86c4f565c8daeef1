import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../audit';
import { Clock } from '../common/clock/clock';
import { hashPassword } from '../common/crypto/crypto';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Page } from '../common/http/envelope';
import type { PageQuery } from '../common/http/pagination';
import { AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/transaction';
import { AdminSessionsRepository } from './admin-sessions.repository';
import type { AdminUser, AdminUserStatus } from './admin-user.entity';
import { activeSuperAdminAfter, AdminActor, assertMayChangeAdmin } from './admin-user-policy';
import { AdminUsersRepository } from './admin-users.repository';
import { AppCredentialsRepository } from './app-credentials.repository';
import { normalizeEmail } from './email';
import { Permission } from './permissions';

export interface NewAdminUser {
  email: string;
  name: string;
  password: string;
  superAdmin?: boolean;
  permissions?: Permission[];
  appIds?: number[] | null;
}

export const USER_SORT_FIELDS = [
  'createdAt',
  'email',
  'name',
  'lastLoginAt',
  'status',
  'id',
] as const;

@Injectable()
export class AdminUsersService {
  constructor(
    private readonly users: AdminUsersRepository,
    private readonly sessions: AdminSessionsRepository,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly config: AppConfig,
    private readonly credentials: AppCredentialsRepository,
  ) {}

  /**
   * Creates an admin user. `actor` is the admin doing it (the HTTP route);
   * the CLI and the bootstrap act with the operator's own authority.
   */
  @Transactional()
  async create(input: NewAdminUser, actor?: AdminActor): Promise<AdminUser> {
    if (actor) {
      assertMayChangeAdmin(actor, null, {
        superAdmin: input.superAdmin ?? false,
        permissions: input.permissions ?? [],
        ...(input.appIds !== undefined ? { appIds: input.appIds } : {}),
      });
    }
    const appIds = await this.checkedScope(input.superAdmin ?? false, input.appIds ?? null);
    const fields: Omit<AdminUser, 'id' | 'createdAt' | 'updatedAt'> = {
      email: input.email.trim(),
      name: input.name.trim(),
      passwordHash: await hashPassword(input.password, this.config.passwordScryptN),
      status: 'ACTIVE',
      superAdmin: input.superAdmin ?? false,
      permissions: [...new Set(input.permissions ?? [])],
      appIds,
      lastLoginAt: null,
    };
    try {
      const saved = await this.users.insert(fields);
      await this.audit.record({
        action: 'admin_user.created',
        targetType: 'admin_user',
        targetId: saved.id,
        after: auditView(saved),
      });
      return saved;
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AppError(ErrorCode.DUPLICATE_RESOURCE, 'An admin user with this email exists');
      throw err;
    }
  }

  /**
   * The user whose email has the same normalised form (NFKC, lower case) as
   * `email`. PostgreSQL's lower() narrows the search; the final comparison is
   * the one normal form, so no other spelling reaches the account.
   */
  async findByEmail(email: string): Promise<AdminUser | null> {
    const wanted = normalizeEmail(email);
    const candidates = await this.users.byEmailIgnoringCase(email.normalize('NFKC').trim());
    return candidates.find((u) => normalizeEmail(u.email) === wanted) ?? null;
  }

  /**
   * Sets a new password and revokes the user's sessions (all of them, or all
   * but `keepSessionId`, the session that made the change).
   */
  async setPassword(
    id: number,
    newPassword: string,
    opts: { keepSessionId?: number } = {},
  ): Promise<void> {
    // Hashing takes a while: before the transaction, not inside it.
    await this.storePassword(
      id,
      await hashPassword(newPassword, this.config.passwordScryptN),
      opts.keepSessionId,
    );
  }

  @Transactional()
  private async storePassword(id: number, passwordHash: string, keepSessionId?: number) {
    const user = await this.get(id);
    await this.users.setPasswordHash(user.id, passwordHash);
    await this.audit.record({
      action: 'admin_user.password_set',
      targetType: 'admin_user',
      targetId: id,
    });
    await this.sessions.revokeAllOf(id, this.clock.now(), keepSessionId);
  }

  /**
   * At login: the same password, hashed again at today's cost (no change of
   * password: nothing audited, no session revoked).
   */
  upgradePasswordHash(id: number, passwordHash: string): Promise<void> {
    return this.users.setPasswordHash(id, passwordHash);
  }

  /** Retention: sessions that expired (or were revoked) more than a day ago. */
  async purgeEndedSessions(): Promise<number> {
    const before = new Date(this.clock.nowMs() - 24 * 3600_000);
    return this.sessions.purgeEndedBefore(before);
  }

  /** By email (the CLI's admin:set-password). */
  async getByEmail(email: string): Promise<AdminUser> {
    const user = await this.findByEmail(email);
    if (!user) throw AppError.notFound('Admin user');
    return user;
  }

  findById(id: number): Promise<AdminUser | null> {
    return this.users.byId(id);
  }

  async get(id: number): Promise<AdminUser> {
    const user = await this.findById(id);
    if (!user) throw AppError.notFound('Admin user');
    return user;
  }

  async count(): Promise<number> {
    return this.users.count();
  }

  async markLoggedIn(id: number): Promise<void> {
    await this.users.setLastLoginAt(id, this.clock.now());
  }

  async list(
    query: PageQuery<(typeof USER_SORT_FIELDS)[number]>,
    filter: { search?: string; status?: AdminUserStatus },
  ): Promise<Page<AdminUser>> {
    return this.users.page(query, filter);
  }

  /**
   * Disabling a user revokes every session they hold, in the same
   * transaction. Who may change whom is `assertMayChangeAdmin`; a change
   * that would leave no ACTIVE super admin is 409.
   */
  @Transactional()
  async update(
    id: number,
    patch: {
      status?: AdminUserStatus;
      permissions?: Permission[];
      name?: string;
      superAdmin?: boolean;
      appIds?: number[] | null;
    },
    actor: AdminActor,
  ): Promise<AdminUser> {
    // The active super admins are locked first (in id order, as every update
    // does), so two demotions racing each other cannot both see "another one left".
    const supers = await this.users.lockActiveSuperAdmins();
    const user = await this.users.lockById(id);
    if (!user) throw AppError.notFound('Admin user');
    assertMayChangeAdmin(actor, user, patch);
    const others = supers.filter((u) => u.id !== user.id).length;
    if (others === 0 && user.superAdmin && !activeSuperAdminAfter(user, patch)) {
      throw AppError.invalidState('This change would leave no active super admin');
    }
    const before = auditView(user);
    if (patch.name !== undefined) user.name = patch.name.trim();
    if (patch.permissions !== undefined) user.permissions = [...new Set(patch.permissions)];
    if (patch.superAdmin !== undefined) user.superAdmin = patch.superAdmin;
    if (patch.status !== undefined) user.status = patch.status;
    if (patch.appIds !== undefined || patch.superAdmin !== undefined) {
      user.appIds = await this.checkedScope(
        user.superAdmin,
        patch.appIds !== undefined ? patch.appIds : user.appIds,
      );
    }
    const saved = await this.users.save(user);
    await this.audit.record({
      action: 'admin_user.updated',
      targetType: 'admin_user',
      targetId: id,
      before,
      after: auditView(saved),
    });
    if (patch.status === 'DISABLED') {
      await this.sessions.revokeAllOf(id, this.clock.now());
    }
    return saved;
  }

  /**
   * A scope as stored: sorted, every id an existing app (else 422), and none
   * on a super admin, who passes every check and so is never scoped.
   */
  private async checkedScope(
    superAdmin: boolean,
    appIds: number[] | null,
  ): Promise<number[] | null> {
    if (appIds === null) return null;
    if (superAdmin) {
      throw AppError.validation('appIds', 'a super admin sees every app: appIds must be null');
    }
    const known = new Set(await this.credentials.existingAppIds(appIds));
    const unknown = appIds.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw AppError.validation('appIds', `no such app: ${unknown.join(', ')}`);
    }
    return [...appIds].sort((a, b) => a - b);
  }
}

/** What the audit log keeps of an admin user (never the password hash). */
function auditView(u: AdminUser): Record<string, unknown> {
  return {
    email: u.email,
    name: u.name,
    status: u.status,
    superAdmin: u.superAdmin,
    permissions: [...u.permissions].sort(),
    appIds: u.appIds,
  };
}
