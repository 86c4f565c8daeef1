import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../audit';
import { Clock } from '../common/clock/clock';
import { sha256Hex } from '../common/crypto/crypto';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { clientKey } from '../common/rate-limit/rate-limiter';
import { AppConfig } from '../config/app-config';
import { normalizeEmail } from './email';
import { LoginThrottleRepository } from './login-throttle.repository';

/** One attempt's counters: which keys it was counted against. */
export interface LoginAttempt {
  pairKey: string;
  emailKey: string;
  addressKey: string;
  /** The (email, address) pair, for "this account logged in from here recently". */
  knownKey: string;
}

/** An address the account logged in from within this long is never refused by the email lock. */
export const KNOWN_ADDRESS_MS = 30 * 24 * 3600_000;

const rateLimited = (retryAfterS: number) =>
  new AppError(ErrorCode.RATE_LIMITED, 'Too many failed logins; try again later', undefined, {
    'Retry-After': String(Math.max(1, retryAfterS)),
  });

/**
 * Login throttling. Every attempt is counted as a failure before any
 * password hashing, atomically (an upsert per key under its row lock, the
 * three keys in one transaction), so parallel attempts count: 5 failures per
 * (email, client address), 50 per email, 20 per address in 15 minutes lock
 * that key for 15 minutes (all settings). A refused attempt (429) counts
 * toward nothing; a success takes its count back and clears its pair.
 * Password hashing runs under a concurrency cap; beyond it, 429 at once.
 * Keys are hashes: no email or address is stored.
 */
@Injectable()
export class LoginThrottleService {
  private hashing = 0;

  constructor(
    private readonly throttles: LoginThrottleRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  /**
   * One throttled password check (login, password change): counted before
   * `verify` runs, under the hashing cap; a match takes its count back, a
   * failure that reached a limit records the lock-out. Whether it matched.
   */
  check(attempt: LoginAttempt, verify: () => Promise<boolean>): Promise<boolean> {
    return this.withinHashingCap(async () => {
      const reached = await this.reserve(attempt);
      const ok = await verify();
      if (ok) await this.succeeded(attempt);
      else if (reached.length > 0) await this.recordLockouts(reached);
      return ok;
    });
  }

  /** Runs `check` (the password hashing) inside the concurrency cap, or refuses with 429. */
  async withinHashingCap<T>(check: () => Promise<T>): Promise<T> {
    if (this.hashing >= this.config.loginHashConcurrency) throw rateLimited(1);
    this.hashing++;
    try {
      return await check();
    } finally {
      this.hashing--;
    }
  }

  /** The counters of an attempt; an IPv6 address counts by its /64, as in the rate limits. */
  keysOf(email: string, address: string): LoginAttempt {
    const e = normalizeEmail(email);
    const a = clientKey(address);
    return {
      pairKey: `pair:${sha256Hex(`${e}\n${a}`)}`,
      emailKey: `email:${sha256Hex(e)}`,
      addressKey: `addr:${sha256Hex(a)}`,
      knownKey: `known:${sha256Hex(`${e}\n${a}`)}`,
    };
  }

  /**
   * Counts the attempt against its three keys, or refuses (429) and counts
   * nothing. Returns the kinds of key this attempt brings to their limit
   * (locked if the password check then fails).
   */
  @Transactional()
  async reserve(attempt: LoginAttempt): Promise<string[]> {
    const c = this.config;
    const limits: [string, string, number][] = [
      ['email_address', attempt.pairKey, c.loginFailuresPerEmailAddress],
      ['email', attempt.emailKey, c.loginFailuresPerEmail],
      ['address', attempt.addressKey, c.loginFailuresPerAddress],
    ];
    const reached: string[] = [];
    for (const [kind, key, limit] of limits) {
      const counted = await this.count(key, limit);
      if ('waitS' in counted) {
        // A flood from elsewhere cannot lock an admin out of their usual address.
        if (kind === 'email' && (await this.isKnownAddress(attempt))) continue;
        // Throwing rolls back the keys already counted: a 429 counts toward nothing.
        throw rateLimited(counted.waitS);
      }
      if (counted.failures >= limit) reached.push(kind);
    }
    return reached;
  }

  /** A failed attempt locked these kinds of key: the audit log says so (no actor, no email). */
  @Transactional()
  async recordLockouts(kinds: string[]): Promise<void> {
    for (const kind of kinds) {
      await this.audit.record({
        action: 'login.locked',
        targetType: 'login_key',
        targetId: kind,
        after: { lockedMinutes: this.config.loginLockMinutes },
        actor: null,
      });
    }
  }

  /** Adds one failure to `key`: the count, or the seconds until its lock ends when it is locked. */
  private async count(
    key: string,
    limit: number,
  ): Promise<{ failures: number } | { waitS: number }> {
    const now = this.clock.now();
    const windowMs = this.config.loginLockMinutes * 60_000;
    const since = new Date(now.getTime() - windowMs);
    const failures = await this.throttles.addFailure(key, now, since, limit);
    if (failures !== null) return { failures };
    const lastAt = await this.throttles.lastFailureAt(key);
    return { waitS: Math.ceil((lastAt.getTime() + windowMs - now.getTime()) / 1000) };
  }

  /** A successful login: it was no failure after all; its pair starts over. */
  @Transactional()
  async succeeded(attempt: LoginAttempt): Promise<void> {
    await this.throttles.remove(attempt.pairKey);
    await this.throttles.takeBackOne([attempt.emailKey, attempt.addressKey]);
    await this.throttles.rememberSuccess(attempt.knownKey, this.clock.now());
  }

  private isKnownAddress(attempt: LoginAttempt): Promise<boolean> {
    return this.throttles.succeededSince(
      attempt.knownKey,
      new Date(this.clock.nowMs() - KNOWN_ADDRESS_MS),
    );
  }

  /** Retention: counters whose window and lock are both over, and successes older than 30 days. */
  async purgeStale(): Promise<number> {
    const now = this.clock.nowMs();
    const before = new Date(now - this.config.loginLockMinutes * 60_000);
    return (
      (await this.throttles.purgeOlderThan(before)) +
      (await this.throttles.purgeSuccessesBefore(new Date(now - KNOWN_ADDRESS_MS)))
    );
  }
}
