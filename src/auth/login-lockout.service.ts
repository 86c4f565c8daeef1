import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Clock } from '../common/clock/clock';
import { sha256Hex } from '../common/crypto/crypto';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { LoginFailure } from './admin-user.entity';

export const LOCKOUT_MAX_FAILURES = 5;
export const LOCKOUT_WINDOW_MS = 15 * 60_000;

/**
 * Five failed logins for one email within 15 minutes lock that email out for
 * 15 minutes, whether or not a user has it (so the lock-out reveals nothing).
 * Emails are stored only as hashes.
 */
@Injectable()
export class LoginLockoutService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  static keyOf(email: string): string {
    return sha256Hex(email.trim().toLowerCase());
  }

  async assertNotLocked(email: string): Promise<void> {
    const now = this.clock.nowMs();
    const recent = await this.txHost.tx.getRepository(LoginFailure).find({
      where: { emailKey: LoginLockoutService.keyOf(email) },
      order: { failedAt: 'DESC' },
      take: LOCKOUT_MAX_FAILURES,
    });
    if (recent.length < LOCKOUT_MAX_FAILURES) return;
    const newest = recent[0].failedAt.getTime();
    const oldest = recent[recent.length - 1].failedAt.getTime();
    const lockedUntil = newest + LOCKOUT_WINDOW_MS;
    if (newest - oldest <= LOCKOUT_WINDOW_MS && now < lockedUntil) {
      const retryAfter = Math.max(1, Math.ceil((lockedUntil - now) / 1000));
      throw new AppError(
        ErrorCode.RATE_LIMITED,
        'Too many failed logins; try again later',
        undefined,
        {
          'Retry-After': String(retryAfter),
        },
      );
    }
  }

  async recordFailure(email: string): Promise<void> {
    await this.txHost.tx
      .getRepository(LoginFailure)
      .insert({ emailKey: LoginLockoutService.keyOf(email), failedAt: this.clock.now() });
  }

  async clear(email: string): Promise<void> {
    await this.txHost.tx
      .getRepository(LoginFailure)
      .delete({ emailKey: LoginLockoutService.keyOf(email) });
  }
}
