import { randomUUID } from 'node:crypto';

import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';
import { ClsService } from 'nestjs-cls';

import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { IdempotencyRepository, KeyRow, KeyScope } from './idempotency.repository';

/** How long a key's request may run before a retry may take it over (longer than any gateway timeout). */
export const IDEMPOTENCY_LEASE_MS = 60_000;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
/** A release the database could not take is tried again after this, doubling up to the max. */
const RELEASE_RETRY_FIRST_MS = 100;
const RELEASE_RETRY_MAX_MS = 5_000;
const ACTIVE = 'joma.idempotency';

export interface RequestIdentity {
  method: string;
  path: string;
  hash: string;
}

/** The key of the request being handled, once claimed. */
export interface ClaimedKey {
  scope: KeyScope;
  owner: string;
  recoveryPoint: string | null;
  recovery: Record<string, unknown> | null;
}

/** The 409 of a request whose key a retry took over (it outlived its lease): the retry does the work. */
export function tookOver(): AppError {
  return new AppError(
    ErrorCode.IDEMPOTENCY_KEY_IN_USE,
    'Another request with this Idempotency-Key took over this one',
  );
}

export type Claim = { kind: 'replay'; row: KeyRow } | { kind: 'run'; key: ClaimedKey };

/**
 * Idempotency keys with Stripe-style recovery points. A key is committed as
 * STARTED (with a lease) before the work, the outcome stored after it. Work
 * that commits in several steps (a payment created, then its gateway
 * checkout opened) records a recovery point in the transaction of each step;
 * a retry after a crash resumes from the last one instead of repeating it.
 * While the lease runs, a retry is told 409 IDEMPOTENCY_KEY_IN_USE.
 */
@Injectable()
export class IdempotencyService implements OnModuleDestroy {
  private readonly pendingReleases = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly cls: ClsService,
    private readonly clock: Clock,
  ) {}

  /**
   * Claims the key for this request (committed before any work), or says
   * what to replay. A new key (nearly every call) is one INSERT committed on
   * its own; only a key that exists takes a transaction to look at it.
   */
  async claim(scope: KeyScope, req: RequestIdentity): Promise<Claim> {
    const now = this.clock.now();
    const owner = randomUUID();
    const lease = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS);
    const expires = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
    const fresh: Claim = {
      kind: 'run',
      key: { scope, owner, recoveryPoint: null, recovery: null },
    };
    try {
      if (await this.keys.insertStarted(scope, req, owner, now, lease, expires)) return fresh;
      return await this.claimExisting(scope, req, fresh.key, { now, lease, expires });
    } catch (err) {
      // A claim whose answer was lost (a connection dropped after its COMMIT)
      // may hold the key with nothing done: freed now, not after the lease.
      if (!(err instanceof AppError)) await this.releaseQuietly(fresh.key);
      throw err;
    }
  }

  /** A key that exists: locked, then replayed, refused, taken over, or (expired) claimed afresh. */
  @Transactional()
  private async claimExisting(
    scope: KeyScope,
    req: RequestIdentity,
    fresh: ClaimedKey,
    at: { now: Date; lease: Date; expires: Date },
  ): Promise<Claim> {
    const { now, lease, expires } = at;
    const owner = fresh.owner;
    const row = await this.keys.lockExisting(scope, now);
    const inUse = () =>
      new AppError(
        ErrorCode.IDEMPOTENCY_KEY_IN_USE,
        'A request with this Idempotency-Key is still in progress',
      );
    if (!row || row.expired) {
      if (row) await this.keys.delete(scope);
      // Gone since the first INSERT (its request released it): another request may have just claimed it.
      if (!(await this.keys.insertStarted(scope, req, owner, now, lease, expires))) throw inUse();
      return { kind: 'run', key: fresh };
    }
    if (row.state === 'STARTED' && !row.lease_over) throw inUse();
    if (row.method !== req.method || row.path !== req.path || row.request_hash !== req.hash) {
      throw new AppError(
        ErrorCode.IDEMPOTENCY_KEY_REUSED,
        'This Idempotency-Key was used with a different request',
      );
    }
    if (row.state === 'FINISHED') return { kind: 'replay', row };
    // The request that held the key died (or outlived its lease): this retry resumes its work.
    await this.keys.takeOver(scope, owner, lease);
    return {
      kind: 'run',
      key: { scope, owner, recoveryPoint: row.recovery_point, recovery: row.recovery },
    };
  }

  /** Makes the claimed key the current request's, for `checkpoint` and `recovered`. */
  enter(key: ClaimedKey): void {
    this.cls.set(ACTIVE, key);
  }

  private active(): ClaimedKey | undefined {
    return this.cls.isActive() ? this.cls.get<ClaimedKey | undefined>(ACTIVE) : undefined;
  }

  /**
   * What an earlier attempt of this request recorded at `point` before it
   * died; undefined on a first attempt, without a key, or at another point.
   */
  recovered<T extends Record<string, unknown>>(point: string): T | undefined {
    const key = this.active();
    return key?.recoveryPoint === point ? (key.recovery as T) : undefined;
  }

  /**
   * Inside the transaction of a step of the work: records that the work got
   * this far (committed with the step, or not at all). A no-op without a key.
   */
  async checkpoint(point: string, recovery: Record<string, unknown>): Promise<void> {
    const key = this.active();
    if (!key) return;
    if (!(await this.keys.checkpoint(key.scope, key.owner, point, recovery))) throw tookOver();
    key.recoveryPoint = point;
    key.recovery = recovery;
  }

  /**
   * Inside the transaction that undoes the work's earlier steps (a payment
   * failed because its gateway would not open a checkout): nothing is left
   * to resume, so a retry after this request's error starts afresh.
   */
  async clearCheckpoint(): Promise<void> {
    const key = this.active();
    if (!key?.recoveryPoint) return;
    await this.keys.checkpoint(key.scope, key.owner, null, null);
    key.recoveryPoint = null;
    key.recovery = null;
  }

  /**
   * Stores the outcome in the caller's transaction. If another request took the key over
   * meanwhile, work that has no recovery point fails that transaction
   * (`isTakenOver`): the other request does it. Work with a recovery point
   * was resumed by the other request, which answers alike; its outcome is
   * the one kept.
   */
  finish(
    key: ClaimedKey,
    outcome: { status: number; errorCode: string | null; body: string },
  ): Promise<void> {
    return this.keys.finish(key.scope, key.owner, outcome, !key.recoveryPoint);
  }

  /** Whether a transaction failed because its `finish` found the key taken over. */
  isTakenOver(err: unknown): boolean {
    return IdempotencyRepository.isTakenOver(err);
  }

  /**
   * After a failure not worth replaying (400s, 5xx): a key whose work
   * committed nothing is freed, so a retry at once starts afresh (decisions
   * section 3 as amended: the lease is for requests still running); a key
   * past a committed recovery point (a refund or payment already written)
   * keeps it and only ends its lease, so a retry at once resumes that work
   * instead of doing it a second time.
   */
  release(key: ClaimedKey): Promise<void> {
    return this.keys.release(key.scope, key.owner, this.clock.now());
  }

  /**
   * `release`, never throwing: when the database cannot take it now (the
   * failure being answered is often that very database), it is retried in
   * the background with back-off until it lands or the lease would have
   * freed the key anyway.
   */
  async releaseQuietly(key: ClaimedKey): Promise<void> {
    try {
      await this.release(key);
    } catch {
      this.releaseLater(key, 0, Date.now() + IDEMPOTENCY_LEASE_MS);
    }
  }

  private releaseLater(key: ClaimedKey, attempt: number, giveUpAt: number): void {
    const delay = Math.min(RELEASE_RETRY_FIRST_MS * 2 ** attempt, RELEASE_RETRY_MAX_MS);
    if (this.closed || Date.now() + delay >= giveUpAt) return;
    const timer = setTimeout(() => {
      this.pendingReleases.delete(timer);
      this.release(key).catch(() => this.releaseLater(key, attempt + 1, giveUpAt));
    }, delay);
    timer.unref();
    this.pendingReleases.add(timer);
  }

  onModuleDestroy(): void {
    this.closed = true;
    for (const timer of this.pendingReleases) clearTimeout(timer);
    this.pendingReleases.clear();
  }

  deleteExpired(batch: number): Promise<number> {
    return this.keys.deleteExpired(this.clock.now(), batch);
  }
}
