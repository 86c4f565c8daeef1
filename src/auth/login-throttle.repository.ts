import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { sql } from '../database/sql';

/** Every query of the login_throttles table (failure counters keyed by hashes). */
@Injectable()
export class LoginThrottleRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /**
   * Adds one failure to `key` under its row lock: a window that started
   * before `windowStart` starts over at `now`. Refuses (null, nothing
   * counted) while the key holds `limit` failures and its last one is after
   * `windowStart`, i.e. while it is locked.
   */
  async addFailure(
    key: string,
    now: Date,
    windowStart: Date,
    limit: number,
  ): Promise<number | null> {
    const rows = await sql(this.txHost.tx).rows<{ failures: number }>(
      `INSERT INTO login_throttles AS t (key, window_start, last_at, failures)
       VALUES ($1, $2, $2, 1)
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN t.window_start <= $3 THEN 1 ELSE t.failures + 1 END,
         window_start = CASE WHEN t.window_start <= $3 THEN $2 ELSE t.window_start END,
         last_at = $2
       WHERE t.failures < $4 OR t.last_at <= $3
       RETURNING t.failures`,
      [key, now, windowStart, limit],
    );
    return rows.length > 0 ? rows[0].failures : null;
  }

  /** When the key's last failure was counted. */
  async lastFailureAt(key: string): Promise<Date> {
    const [held] = await sql(this.txHost.tx).rows<{ last_at: Date }>(
      'SELECT last_at FROM login_throttles WHERE key = $1',
      [key],
    );
    return new Date(held.last_at);
  }

  async remove(key: string): Promise<void> {
    await sql(this.txHost.tx).run('DELETE FROM login_throttles WHERE key = $1', [key]);
  }

  /** Takes one failure back from each key (never below zero). */
  async takeBackOne(keys: string[]): Promise<void> {
    await sql(this.txHost.tx).run(
      'UPDATE login_throttles SET failures = GREATEST(failures - 1, 0) WHERE key = ANY($1)',
      [keys],
    );
  }

  /** Records a successful login of the (email, address) pair. */
  async rememberSuccess(key: string, at: Date): Promise<void> {
    await sql(this.txHost.tx).run(
      `INSERT INTO login_known_addresses (key, last_success_at) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET last_success_at = GREATEST(login_known_addresses.last_success_at, $2)`,
      [key, at],
    );
  }

  /** Whether the pair logged in successfully at or after `since`. */
  async succeededSince(key: string, since: Date): Promise<boolean> {
    const rows = await sql(this.txHost.tx).rows<unknown>(
      'SELECT 1 FROM login_known_addresses WHERE key = $1 AND last_success_at >= $2',
      [key, since],
    );
    return rows.length > 0;
  }

  async purgeSuccessesBefore(before: Date): Promise<number> {
    return sql(this.txHost.tx).run('DELETE FROM login_known_addresses WHERE last_success_at < $1', [
      before,
    ]);
  }

  /** Deletes counters whose last failure is before `before`; how many. */
  async purgeOlderThan(before: Date): Promise<number> {
    return sql(this.txHost.tx).run('DELETE FROM login_throttles WHERE last_at < $1', [before]);
  }
}
