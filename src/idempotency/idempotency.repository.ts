import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { sql } from '../database/sql';
import { sqlStateOf } from '../database/transaction';

/** SQLSTATE raised by joma_idempotency_key_taken_over() (migration 1796500000000). */
export const TAKEN_OVER = 'JI409';

export interface KeyScope {
  appId: number;
  mode: string;
  key: string;
}

export interface KeyRow {
  state: 'STARTED' | 'FINISHED';
  method: string;
  path: string;
  request_hash: string;
  status_code: number | null;
  error_code: string | null;
  response_body: string | null;
  owner: string | null;
  /** The key is past its 24 h and may be used afresh. */
  expired: boolean;
  /** A STARTED key whose lease ran out: its request died (or hangs) and a retry may take over. */
  lease_over: boolean;
  recovery_point: string | null;
  recovery: Record<string, unknown> | null;
}

/** Every query of the idempotency_keys table. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** Inserts a STARTED key; false when the key already exists (then `lockExisting`). */
  async insertStarted(
    s: KeyScope,
    req: { method: string; path: string; hash: string },
    owner: string,
    now: Date,
    leaseUntil: Date,
    expiresAt: Date,
  ): Promise<boolean> {
    const rows = await sql(this.txHost.tx).rows<unknown>(
      `INSERT INTO idempotency_keys
         (app_id, mode, key, state, method, path, request_hash, owner, locked_until, created_at, expires_at)
       VALUES ($1, $2, $3, 'STARTED', $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (app_id, mode, key) DO NOTHING RETURNING id`,
      [s.appId, s.mode, s.key, req.method, req.path, req.hash, owner, leaseUntil, now, expiresAt],
    );
    return rows.length === 1;
  }

  async lockExisting(s: KeyScope, now: Date): Promise<KeyRow | null> {
    const [row] = await sql(this.txHost.tx).rows<KeyRow>(
      `SELECT state, method, path, request_hash, status_code, error_code, response_body, owner,
              recovery_point, recovery, expires_at <= $4 AS expired,
              (state = 'STARTED' AND locked_until <= $4) AS lease_over
       FROM idempotency_keys WHERE app_id = $1 AND mode = $2 AND key = $3 FOR UPDATE`,
      [s.appId, s.mode, s.key, now],
    );
    return row ?? null;
  }

  /** A retry takes over a key whose request died; its recovery point is kept. */
  async takeOver(s: KeyScope, owner: string, leaseUntil: Date): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE idempotency_keys SET owner = $4, locked_until = $5
       WHERE app_id = $1 AND mode = $2 AND key = $3`,
      [s.appId, s.mode, s.key, owner, leaseUntil],
    );
  }

  async delete(s: KeyScope): Promise<void> {
    await sql(this.txHost.tx).run(
      `DELETE FROM idempotency_keys WHERE app_id = $1 AND mode = $2 AND key = $3`,
      [s.appId, s.mode, s.key],
    );
  }

  /**
   * After its owner's failure: frees the key when its work committed nothing
   * (no recovery point), or ends its lease when it did (the next retry takes
   * it over and resumes). Decided on what is committed, not on what the
   * failed request believed: a step whose COMMIT was lost counts as it landed.
   */
  async release(s: KeyScope, owner: string, now: Date): Promise<void> {
    await sql(this.txHost.tx).run(
      `WITH freed AS (
         DELETE FROM idempotency_keys
          WHERE app_id = $1 AND mode = $2 AND key = $3 AND owner = $4 AND state = 'STARTED'
            AND recovery_point IS NULL)
       UPDATE idempotency_keys SET locked_until = LEAST(locked_until, $5)
        WHERE app_id = $1 AND mode = $2 AND key = $3 AND owner = $4 AND state = 'STARTED'
          AND recovery_point IS NOT NULL`,
      [s.appId, s.mode, s.key, owner, now],
    );
  }

  /** Records how far the work got, in the work's own transaction; false when the key is no longer this owner's. */
  async checkpoint(
    s: KeyScope,
    owner: string,
    point: string | null,
    recovery: Record<string, unknown> | null,
  ): Promise<boolean> {
    const n = await sql(this.txHost.tx).run(
      `UPDATE idempotency_keys SET recovery_point = $5, recovery = $6
       WHERE app_id = $1 AND mode = $2 AND key = $3 AND owner = $4 AND state = 'STARTED'`,
      [s.appId, s.mode, s.key, owner, point, recovery && JSON.stringify(recovery)],
    );
    return n === 1;
  }

  /**
   * Stores the outcome in the caller's transaction. With
   * `guard`, a key another request took over meanwhile fails the statement
   * and so the transaction (SQLSTATE TAKEN_OVER, see `isTakenOver`); without,
   * such a key is simply left as the other request has it.
   */
  async finish(
    s: KeyScope,
    owner: string,
    outcome: { status: number; errorCode: string | null; body: string },
    guard: boolean,
  ): Promise<void> {
    const update = `UPDATE idempotency_keys
       SET state = 'FINISHED', status_code = $5, error_code = $6, response_body = $7, locked_until = NULL
       WHERE app_id = $1 AND mode = $2 AND key = $3 AND owner = $4 AND state = 'STARTED'`;
    await sql(this.txHost.tx).rows(
      guard
        ? // CASE evaluates its ELSE only when reached (the function is volatile, never folded).
          `WITH stored AS (${update} RETURNING 1)
           SELECT CASE WHEN EXISTS (SELECT 1 FROM stored) THEN true
                       ELSE joma_idempotency_key_taken_over() END`
        : update,
      [s.appId, s.mode, s.key, owner, outcome.status, outcome.errorCode, outcome.body],
    );
  }

  /** The error of a guarded `finish` whose key was taken over. */
  static isTakenOver(err: unknown): boolean {
    return sqlStateOf(err) === TAKEN_OVER;
  }

  async deleteExpired(now: Date, batch: number): Promise<number> {
    const n = await sql(this.txHost.tx).run(
      `DELETE FROM idempotency_keys WHERE id IN (SELECT id FROM idempotency_keys WHERE expires_at < $1 LIMIT $2)`,
      [now, batch],
    );
    return n ?? 0;
  }
}
