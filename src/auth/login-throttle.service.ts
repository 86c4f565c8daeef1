import { Injectable } from '@nestjs/common';
import { TransactionHost, Transactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Clock } from '../common/clock/clock';
import { sha256Hex } from '../common/crypto/crypto';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import { normalizeEmail } from './email';

/** One attempt's counters: which keys it was counted against. */
export interface LoginAttempt {
  pairKey: string;
  emailKey: string;
  addressKey: string;
}

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
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

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

  keysOf(email: string, address: string): LoginAttempt {
    const e = normalizeEmail(email);
    return {
      pairKey: `pair:${sha256Hex(`${e}\n${address}`)}`,
      emailKey: `email:${sha256Hex(e)}`,
      addressKey: `addr:${sha256Hex(address)}`,
    };
  }

  /** Counts the attempt against its three keys, or refuses (429) and counts nothing. */
  @Transactional()
  async reserve(attempt: LoginAttempt): Promise<void> {
    const c = this.config;
    const limits: [string, number][] = [
      [attempt.pairKey, c.loginFailuresPerEmailAddress],
      [attempt.emailKey, c.loginFailuresPerEmail],
      [attempt.addressKey, c.loginFailuresPerAddress],
    ];
    for (const [key, limit] of limits) {
      const waitS = await this.count(key, limit);
      // Throwing rolls back the keys already counted: a 429 counts toward nothing.
      if (waitS !== null) throw rateLimited(waitS);
    }
  }

  /** Adds one failure to `key`; null, or the seconds until its lock ends when it is locked. */
  private async count(key: string, limit: number): Promise<number | null> {
    const now = this.clock.now();
    const windowMs = this.config.loginLockMinutes * 60_000;
    const since = new Date(now.getTime() - windowMs);
    const rows: unknown[] = await this.txHost.tx.query(
      `INSERT INTO login_throttles AS t (key, window_start, last_at, failures)
       VALUES ($1, $2, $2, 1)
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN t.window_start <= $3 THEN 1 ELSE t.failures + 1 END,
         window_start = CASE WHEN t.window_start <= $3 THEN $2 ELSE t.window_start END,
         last_at = $2
       WHERE t.failures < $4 OR t.last_at <= $3
       RETURNING t.failures`,
      [key, now, since, limit],
    );
    if (rows.length > 0) return null;
    const [held] = (await this.txHost.tx.query(
      'SELECT last_at FROM login_throttles WHERE key = $1',
      [key],
    )) as { last_at: Date }[];
    return Math.ceil((new Date(held.last_at).getTime() + windowMs - now.getTime()) / 1000);
  }

  /** A successful login: it was no failure after all; its pair starts over. */
  @Transactional()
  async succeeded(attempt: LoginAttempt): Promise<void> {
    await this.txHost.tx.query('DELETE FROM login_throttles WHERE key = $1', [attempt.pairKey]);
    await this.txHost.tx.query(
      'UPDATE login_throttles SET failures = GREATEST(failures - 1, 0) WHERE key = ANY($1)',
      [[attempt.emailKey, attempt.addressKey]],
    );
  }

  /** Retention: counters whose window and lock are both over. */
  async purgeStale(): Promise<number> {
    const before = new Date(this.clock.nowMs() - this.config.loginLockMinutes * 60_000);
    const res: [unknown[], number] = await this.txHost.tx.query(
      'DELETE FROM login_throttles WHERE last_at < $1',
      [before],
    );
    return res[1] ?? 0;
  }
}
