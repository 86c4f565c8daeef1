import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { Transactional } from '@nestjs-cls/transactional';

import { Clock } from '../common/clock/clock';
import {
  dummyPasswordHash,
  hashPassword,
  needsRehash,
  randomToken,
  verifyPassword,
} from '../common/crypto/crypto';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { AdminPrincipal } from '../common/http/request-context';
import { AppConfig } from '../config/app-config';
import { AdminSessionsRepository } from './admin-sessions.repository';
import type { AdminUser } from './admin-user.entity';
import { AdminUsersService } from './admin-users.service';
import { LoginThrottleService } from './login-throttle.service';

export interface IssuedSession {
  token: string;
  tokenType: 'Bearer';
  expiresAt: Date;
  user: AdminUser;
}

export interface JwtClaims {
  sub: string;
  sid: string;
}

/** Admin login, logout and session validation (server-side, revocable). */
@Injectable()
export class AuthService {
  constructor(
    private readonly sessions: AdminSessionsRepository,
    private readonly users: AdminUsersService,
    private readonly throttle: LoginThrottleService,
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * Logs in from `address` (the client address). The attempt is counted
   * before the password is hashed (see LoginThrottleService); hashing runs
   * under the concurrency cap, outside any transaction.
   */
  async login(email: string, password: string, address: string): Promise<IssuedSession> {
    let user: AdminUser | null = null;
    let upgraded: string | null = null;
    const cost = this.config.passwordScryptN;
    const ok = await this.throttle.check(this.throttle.keysOf(email, address), async () => {
      user = await this.users.findByEmail(email);
      // Verify against a dummy hash when there is no user, so timing reveals nothing.
      const match = await verifyPassword(password, user?.passwordHash ?? dummyPasswordHash(cost));
      // A hash made at a lower cost is made again at today's, under the same cap.
      if (match && user && needsRehash(user.passwordHash, cost))
        upgraded = await hashPassword(password, cost);
      return match && user?.status === 'ACTIVE';
    });
    if (!ok || !user)
      throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'Invalid email or password');
    const found: AdminUser = user;
    if (upgraded) await this.users.upgradePasswordHash(found.id, upgraded);
    return this.openSession(found);
  }

  /**
   * Changes the logged-in admin's own password after checking the current
   * one (throttled like a login); every other session of theirs is revoked
   * (this one stays).
   */
  async changeOwnPassword(
    principal: AdminPrincipal,
    currentPassword: string,
    newPassword: string,
    address: string,
  ): Promise<void> {
    const ok = await this.throttle.check(this.throttle.keysOf(principal.email, address), async () =>
      verifyPassword(currentPassword, (await this.users.get(principal.userId)).passwordHash),
    );
    if (!ok) throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'The current password is wrong');
    await this.users.setPassword(principal.userId, newPassword, {
      keepSessionId: principal.sessionId,
    });
  }

  @Transactional()
  private async openSession(user: AdminUser): Promise<IssuedSession> {
    await this.users.markLoggedIn(user.id);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.config.jwtTtlMinutes * 60_000);
    const tokenId = randomToken(24);
    await this.sessions.insert({ userId: user.id, tokenId, expiresAt });
    const claims: JwtClaims = { sub: String(user.id), sid: tokenId };
    const token = await this.jwt.signAsync(claims, {
      secret: this.config.jwtSecret,
      expiresIn: this.config.jwtTtlMinutes * 60,
      algorithm: 'HS256',
    });
    return { token, tokenType: 'Bearer', expiresAt, user };
  }

  /**
   * A bearer token as the admin guard checks it (signature, expiry, then the
   * session row), for the app routes an admin acts on (section 15).
   */
  async principalForToken(token: string): Promise<AdminPrincipal> {
    let claims: JwtClaims;
    try {
      claims = await this.jwt.verifyAsync<JwtClaims>(token, {
        secret: this.config.jwtSecret,
        algorithms: ['HS256'],
      });
    } catch {
      throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'Invalid or expired token');
    }
    return this.principalFor(claims);
  }

  /** Resolves a verified token's claims to a live session, or refuses. */
  async principalFor(claims: JwtClaims): Promise<AdminPrincipal> {
    const session = await this.sessions.byTokenId(claims.sid);
    const now = this.clock.nowMs();
    if (
      !session ||
      session.revokedAt ||
      session.expiresAt.getTime() <= now ||
      String(session.userId) !== claims.sub
    ) {
      throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'Session is expired or revoked');
    }
    const user = await this.users.findById(session.userId);
    if (!user || user.status !== 'ACTIVE')
      throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'Session is expired or revoked');
    return {
      userId: user.id,
      sessionId: session.id,
      email: user.email,
      name: user.name,
      superAdmin: user.superAdmin,
      permissions: user.permissions,
      appIds: user.appIds,
    };
  }

  async logout(principal: AdminPrincipal): Promise<void> {
    await this.sessions.revoke(principal.sessionId, this.clock.now());
  }
}
