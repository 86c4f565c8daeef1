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
  /** The (email, address) pair, for "this account logged in from here recently" (a known address). */
  knownKey: string;
}

/** An address the account logged in from within this long is never refused by the email lock. */
export const KNOWN_ADDRESS_MS = 30 * 24 * 3600_000;
/** An account keeps at most this many known addresses: the ones of its most recent logins. */
export const KNOWN_ADDRESSES_PER_ACCOUNT = 10;
/** Locks this process has seen, remembered so that a flood on them costs no database work. */
const REMEMBERED_LOCKS = 10_000;

/** The hashing lanes: attempts from a known address never wait behind (or for) the others. */
export type HashingLane = 'general' | 'known';

type LimitKind = 'email_address' | 'email' | 'address';
interface Limit {
  kind: LimitKind;
  key: string;
  limit: number;
}

const rateLimited = (retryAfterS: number) =>
  AppError.routine(ErrorCode.RATE_LIMITED, 'Too many failed logins; try again later', {
    'Retry-After': String(Math.max(1, retryAfterS)),
  });

/**
 * Login throttling (decisions section 14 and its amendment "Section 14,
 * logins"). An attempt goes through, in this order:
 *
 * 1. The locks, which need no hash: the (email, address) pair, the address,
 *    and, from an address that is not one of the account's known addresses,
 *    the email. A lock this process has seen is answered from memory; any
 *    other is read (no row lock, no write). A locked key answers 429 at once:
 *    nothing is hashed, nothing counted, no hashing slot taken.
 * 2. A hashing slot, in one of two lanes of `loginHashConcurrency` each: the
 *    known lane for attempts from a known address, the general lane for the
 *    rest. A full lane answers 429 at once (nothing was counted yet).
 * 3. The count, atomically (an upsert per key under its row lock, the keys in
 *    one transaction), so parallel attempts count: a key that locked meanwhile
 *    answers 429 and the keys already counted roll back.
 * 4. The password hash. A wrong password stays counted (5 per pair, 50 per
 *    email, 20 per address in 15 minutes lock that key for 15 minutes; all
 *    settings); a right one takes its count back, clears its pair, and makes
 *    (or keeps) its address known.
 *
 * A known address is one the account logged in from successfully within 30
 * days (at most its 10 most recent; IPv6 by its /64). Its attempts do not
 * count against the email and the email lock does not refuse them: they
 * have the pair's budget (and the address's) instead. So a success lifts
 * the email lock only for its own address, and a success never takes a
 * count back from a key at its limit (it never unlocks a key for others).
 * Keys are hashes: no email or address is stored.
 */
@Injectable()
export class LoginThrottleService {
  private readonly hashing: Record<HashingLane, number> = { general: 0, known: 0 };
  /** Key -> when its lock ends (ms). A lock is never lifted early, except a pair's by its own success. */
  private readonly locks = new Map<string, number>();

  constructor(
    private readonly throttles: LoginThrottleRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  /**
   * One throttled password check (login, password change): refused before
   * any hashing while a key is locked; counted before `verify` runs, under
   * the hashing cap of its lane; a match takes its count back, a failure
   * that reached a limit records the lock-out. Whether it matched.
   */
  async check(attempt: LoginAttempt, verify: () => Promise<boolean>): Promise<boolean> {
    const known = await this.refuseIfLocked(attempt);
    const limits = this.limitsOf(attempt, known);
    return this.withinHashingCap(
      async () => {
        const reached = await this.reserve(limits);
        const ok = await verify();
        if (ok) await this.succeeded(attempt, limits);
        else if (reached.length > 0) await this.recordLockouts(reached);
        return ok;
      },
      known ? 'known' : 'general',
    );
  }

  /** Runs `check` (the password hashing) inside its lane's concurrency cap, or refuses with 429. */
  async withinHashingCap<T>(check: () => Promise<T>, lane: HashingLane = 'general'): Promise<T> {
    if (this.hashing[lane] >= this.config.loginHashConcurrency) throw rateLimited(1);
    this.hashing[lane]++;
    try {
      return await check();
    } finally {
      this.hashing[lane]--;
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
   * Step 1: refuses (429) an attempt a lock holds, before any hashing,
   * counting or hashing slot; the pair's and the address's locks are looked
   * at before anything is read. Whether the attempt comes from a known
   * address (then the email lock does not apply to it).
   */
  async refuseIfLocked(attempt: LoginAttempt): Promise<boolean> {
    this.refuseIfRemembered([attempt.pairKey, attempt.addressKey]);
    const now = this.clock.nowMs();
    const { known, counters } = await this.throttles.standing(
      [attempt.pairKey, attempt.addressKey, attempt.emailKey],
      attempt.knownKey,
      new Date(now - KNOWN_ADDRESS_MS),
    );
    if (!known) this.refuseIfRemembered([attempt.emailKey]);
    const limits = this.limitsOf(attempt, known);
    const windowMs = this.config.loginLockMinutes * 60_000;
    let untilMs = 0;
    for (const row of counters) {
      const limit = limits.find((l) => l.key === row.key)?.limit;
      const endsAt = row.lastAt.getTime() + windowMs;
      if (limit !== undefined && row.failures >= limit && endsAt > now) {
        this.rememberLock(row.key, endsAt);
        untilMs = Math.max(untilMs, endsAt);
      }
    }
    if (untilMs > 0) throw rateLimited(Math.ceil((untilMs - now) / 1000));
    return known;
  }

  /**
   * Step 3: counts the attempt against its keys, or refuses (429) and counts
   * nothing. Returns the kinds of key this attempt brings to their limit
   * (locked if the password check then fails).
   */
  @Transactional()
  async reserve(limits: Limit[]): Promise<LimitKind[]> {
    const reached: LimitKind[] = [];
    for (const { kind, key, limit } of limits) {
      const counted = await this.count(key, limit);
      if ('untilMs' in counted) {
        this.rememberLock(key, counted.untilMs);
        // Throwing rolls back the keys already counted: a 429 counts toward nothing.
        throw rateLimited(Math.ceil((counted.untilMs - this.clock.nowMs()) / 1000));
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

  /** Adds one failure to `key`: the count, or when its lock ends when it is locked. */
  private async count(
    key: string,
    limit: number,
  ): Promise<{ failures: number } | { untilMs: number }> {
    const now = this.clock.now();
    const windowMs = this.config.loginLockMinutes * 60_000;
    const since = new Date(now.getTime() - windowMs);
    const failures = await this.throttles.addFailure(key, now, since, limit);
    if (failures !== null) return { failures };
    const lastAt = await this.throttles.lastFailureAt(key);
    return { untilMs: lastAt.getTime() + windowMs };
  }

  /**
   * A successful login: it was no failure after all. Its pair starts over;
   * the keys it counted against take it back unless they are at their limit
   * (a success never unlocks the email or the address for anyone else); its
   * address is known from now on.
   */
  @Transactional()
  async succeeded(attempt: LoginAttempt, limits: Limit[]): Promise<void> {
    await this.throttles.remove(attempt.pairKey);
    this.locks.delete(attempt.pairKey);
    await this.throttles.takeBackOne(limits.filter((l) => l.kind !== 'email_address'));
    await this.throttles.rememberSuccess(
      attempt.knownKey,
      attempt.emailKey,
      this.clock.now(),
      KNOWN_ADDRESSES_PER_ACCOUNT,
    );
  }

  /** The keys an attempt counts against: from a known address, not the email. */
  private limitsOf(attempt: LoginAttempt, known: boolean): Limit[] {
    const c = this.config;
    const limits: Limit[] = [
      { kind: 'email_address', key: attempt.pairKey, limit: c.loginFailuresPerEmailAddress },
      { kind: 'address', key: attempt.addressKey, limit: c.loginFailuresPerAddress },
    ];
    if (!known)
      limits.push({ kind: 'email', key: attempt.emailKey, limit: c.loginFailuresPerEmail });
    return limits;
  }

  /** 429 at once when this process saw one of `keys` locked and the lock still holds. */
  private refuseIfRemembered(keys: string[]): void {
    const now = this.clock.nowMs();
    for (const key of keys) {
      const until = this.locks.get(key);
      if (until === undefined) continue;
      if (until > now) throw rateLimited(Math.ceil((until - now) / 1000));
      this.locks.delete(key);
    }
  }

  private rememberLock(key: string, untilMs: number): void {
    if (this.locks.size >= REMEMBERED_LOCKS) {
      const now = this.clock.nowMs();
      for (const [k, until] of this.locks) if (until <= now) this.locks.delete(k);
      // Still full: forget the oldest (it is read again from the database if it comes back).
      if (this.locks.size >= REMEMBERED_LOCKS) this.locks.delete(this.locks.keys().next().value!);
    }
    this.locks.set(key, untilMs);
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
