import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { sql } from '../database/sql';

/**
 * Every query of the login_throttles table (failure counters keyed by hashes)
 * and of login_known_addresses (where each account last logged in).
 */
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

  /**
   * In one read (no row lock, no write): whether the pair `knownKey` logged
   * in successfully at or after `since`, and the counters of `keys` as they
   * stand. For refusing a locked attempt before anything else is done.
   */
  async standing(
    keys: string[],
    knownKey: string,
    since: Date,
  ): Promise<{ known: boolean; counters: { key: string; failures: number; lastAt: Date }[] }> {
    const [row] = await sql(this.txHost.tx).rows<{
      known: boolean;
      counters: { key: string; failures: number; last_at: string }[];
    }>(
      `SELECT EXISTS (SELECT 1 FROM login_known_addresses WHERE key = $2 AND last_success_at >= $3) AS known,
              COALESCE((SELECT json_agg(json_build_object('key', key, 'failures', failures, 'last_at', last_at))
                          FROM login_throttles WHERE key = ANY($1)), '[]'::json) AS counters`,
      [keys, knownKey, since],
    );
    return {
      known: row.known,
      counters: row.counters.map((c) => ({
        key: c.key,
        failures: c.failures,
        lastAt: new Date(c.last_at),
      })),
    };
  }

  /**
   * Takes one failure back from each key that holds fewer than its limit: a
   * key at its limit is locked, and a success never lifts a lock.
   */
  async takeBackOne(keys: { key: string; limit: number }[]): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE login_throttles AS t SET failures = GREATEST(t.failures - 1, 0)
       FROM unnest($1::text[], $2::int[]) AS k(key, lim)
       WHERE t.key = k.key AND t.failures < k.lim`,
      [keys.map((k) => k.key), keys.map((k) => k.limit)],
    );
  }

  /**
   * Records a successful login of the (email, address) pair for the account
   * (`accountKey`), and forgets that account's known addresses beyond its
   * `keep` most recent.
   */
  async rememberSuccess(key: string, accountKey: string, at: Date, keep: number): Promise<void> {
    await sql(this.txHost.tx).run(
      `INSERT INTO login_known_addresses (key, account_key, last_success_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET
         account_key = $2,
         last_success_at = GREATEST(login_known_addresses.last_success_at, $3)`,
      [key, accountKey, at],
    );
    await sql(this.txHost.tx).run(
      `DELETE FROM login_known_addresses WHERE account_key = $1 AND key NOT IN (
         SELECT key FROM login_known_addresses WHERE account_key = $1
         ORDER BY last_success_at DESC, key LIMIT $2)`,
      [accountKey, keep],
    );
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
