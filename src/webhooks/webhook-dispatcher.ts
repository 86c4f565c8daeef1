import { Injectable, Logger } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Clock } from '../common/clock/clock';
import type { Mode } from '../common/http/request-context';
import { AppConfig } from '../config/app-config';
import { DeliveryError, DeliveryStatus } from './delivery-status';
import { newEndpointSecret, openSecret, sealSecret } from './endpoint-secret';
import { sendWebhook, SendOutcome } from './http-sender';
import { nextRetryDelayMs } from './retry-schedule';
import { deliveryHeaders } from './signer';
import { returningRows } from './sql';
import { WebhookMetrics } from './webhook-metrics';
import { resolveTarget, ResolvedAddress, TargetRefused, withDeadline } from './target-resolver';
import { deliveryUrlProblem, hostOf } from './url-policy';

/** At most this many requests in flight to one endpoint from one replica. */
export const PER_ENDPOINT_CONCURRENCY = 4;
/**
 * At most this many requests in flight from one replica. Sockets waiting on a
 * slow consumer are cheap; a high cap keeps a few dead endpoints (at most 4
 * slots each) from occupying every slot and delaying healthy ones.
 */
export const MAX_IN_FLIGHT = 256;
/** A claim holds a delivery this long beyond the request deadline; then another replica may take it. */
export const LEASE_MARGIN_MS = 50_000;

interface Claimed {
  id: number;
  event_id: number;
  endpoint_id: number;
  app_id: number;
  mode: Mode;
  event_type: string;
  body: string;
  attempts: number;
  cycle_attempts: number;
  url: string;
  enabled: boolean;
  deleted_at: Date | null;
}

interface Result {
  status: DeliveryStatus;
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  nextAttemptAt: Date | null;
  target: ResolvedAddress | null;
  signedTimestamp: number | null;
}

interface InFlight {
  endpointId: number;
  abort: AbortController;
  done: Promise<void>;
}

/**
 * Delivers due deliveries. Claims them with FOR UPDATE SKIP LOCKED and a
 * lease (so replicas never send one twice in a fault-free run and a dead
 * replica's claims return after the lease), caps requests per endpoint and
 * skips full endpoints while claiming, so a slow or failing endpoint never
 * holds back its siblings. Each attempt is signed afresh, logged, and either
 * acknowledged (2xx), scheduled for retry, or parked.
 */
@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger(WebhookDispatcher.name);
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly inFlight = new Map<number, InFlight>();
  private readonly perEndpoint = new Map<number, number>();
  private running = false;
  /** Set by abandon(): results are dropped, as when a process dies. */
  private crashed = false;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly metrics: WebhookMetrics,
  ) {}

  get leaseMs(): number {
    return this.config.webhookTimeoutMs + LEASE_MARGIN_MS;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  start(): void {
    this.running = true;
    this.crashed = false;
  }

  /** Claims and launches as much due work as the caps allow. Safe to call often. */
  pump(): Promise<void> {
    if (!this.running) return Promise.resolve();
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = this.pumpLoop().finally(() => {
      this.pumping = null;
    });
    return this.pumping;
  }

  private async pumpLoop(): Promise<void> {
    try {
      do {
        this.pumpAgain = false;
        while (this.running && this.inFlight.size < MAX_IN_FLIGHT) {
          const claimed = await this.claim(MAX_IN_FLIGHT - this.inFlight.size);
          if (!this.running) {
            await this.release(claimed.map((c) => c.id));
            return;
          }
          if (claimed.length === 0) break;
          for (const c of claimed) this.launch(c);
        }
      } while (this.pumpAgain && this.running);
    } catch (err) {
      this.logger.error(`claiming deliveries failed: ${(err as Error).message}`);
    }
  }

  /**
   * Stops claiming, aborts requests in flight and hands their deliveries back
   * (lease cleared) so another replica retries them at once.
   */
  async stop(): Promise<void> {
    this.running = false;
    await this.pumping;
    const ids = [...this.inFlight.keys()];
    for (const f of this.inFlight.values()) f.abort.abort();
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    if (!this.crashed) await this.release(ids);
  }

  private async release(ids: number[]): Promise<void> {
    if (ids.length === 0 || this.crashed) return;
    await this.txHost.tx
      .query(
        `UPDATE webhook_deliveries SET locked_until = NULL, locked_by = NULL WHERE id = ANY($1::bigint[]) AND locked_by = $2`,
        [ids, this.workerId],
      )
      .catch((err: Error) => this.logger.warn(`releasing leases failed: ${err.message}`));
  }

  /**
   * Stops dead, writing nothing back (claims stay leased until the lease
   * runs out), which is what a killed process leaves behind.
   */
  async abandon(): Promise<void> {
    this.crashed = true;
    await this.stop();
  }

  private async claim(max: number): Promise<Claimed[]> {
    const now = this.clock.now();
    const full: number[] = [];
    const busyIds: number[] = [];
    const busySlots: number[] = [];
    for (const [endpointId, n] of this.perEndpoint) {
      if (n >= PER_ENDPOINT_CONCURRENCY) full.push(endpointId);
      else if (n > 0) {
        busyIds.push(endpointId);
        busySlots.push(PER_ENDPOINT_CONCURRENCY - n);
      }
    }
    return returningRows<Claimed>(
      this.txHost.tx,
      `WITH candidates AS (
         SELECT id, endpoint_id, next_attempt_at FROM webhook_deliveries
          WHERE status IN ('PENDING', 'RETRYING') AND next_attempt_at <= $1
            AND (locked_until IS NULL OR locked_until <= $1)
            AND endpoint_id <> ALL($2::bigint[])
          ORDER BY next_attempt_at, id
          LIMIT $3
       ), ranked AS (
         SELECT c.id, c.endpoint_id,
                row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.id) AS rn
           FROM candidates c
       ), allowed AS (
         SELECT r.id FROM ranked r
           LEFT JOIN unnest($4::bigint[], $5::int[]) AS busy (endpoint_id, slots) ON busy.endpoint_id = r.endpoint_id
          WHERE r.rn <= coalesce(busy.slots, $6)
       ), picked AS (
         SELECT d.id FROM webhook_deliveries d
          WHERE d.id IN (SELECT id FROM allowed)
            AND d.status IN ('PENDING', 'RETRYING') AND d.next_attempt_at <= $1
            AND (d.locked_until IS NULL OR d.locked_until <= $1)
          ORDER BY d.next_attempt_at, d.id
          LIMIT $7
          FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE webhook_deliveries d
          SET locked_until = $8, locked_by = $9
         FROM picked, webhook_endpoints e
        WHERE d.id = picked.id AND e.id = d.endpoint_id
       RETURNING d.id, d.event_id, d.endpoint_id, d.app_id, d.mode, d.event_type, d.body, d.attempts, d.cycle_attempts,
                 e.url, e.enabled, e.deleted_at`,
      [
        now,
        full,
        Math.max(max * 4, 200),
        busyIds,
        busySlots,
        PER_ENDPOINT_CONCURRENCY,
        max,
        new Date(now.getTime() + this.leaseMs),
        this.workerId,
      ],
    );
  }

  private launch(c: Claimed): void {
    const abort = new AbortController();
    this.perEndpoint.set(c.endpoint_id, (this.perEndpoint.get(c.endpoint_id) ?? 0) + 1);
    const done = this.attempt(c, abort.signal)
      .catch((err: Error) =>
        this.logger.error(`delivery ${c.id} failed unexpectedly: ${err.message}`),
      )
      .finally(() => {
        this.inFlight.delete(c.id);
        const n = (this.perEndpoint.get(c.endpoint_id) ?? 1) - 1;
        if (n <= 0) this.perEndpoint.delete(c.endpoint_id);
        else this.perEndpoint.set(c.endpoint_id, n);
        if (this.running) setImmediate(() => void this.pump());
      });
    this.inFlight.set(c.id, { endpointId: c.endpoint_id, abort, done });
  }

  private async attempt(c: Claimed, signal: AbortSignal): Promise<void> {
    const startedAt = this.clock.now();
    const t0 = performance.now();
    const result = await this.execute(c, signal);
    if (signal.aborted || this.crashed) return;
    const durationMs = Math.round(performance.now() - t0);
    await this.record(c, result, startedAt, durationMs);
    this.metrics.attempts.inc({ outcome: result.status });
    this.metrics.attemptDuration.observe(durationMs / 1000);
  }

  private async execute(c: Claimed, signal: AbortSignal): Promise<Result> {
    const park = (error: string): Result => ({
      status: 'PARKED',
      statusCode: null,
      error,
      excerpt: null,
      nextAttemptAt: null,
      target: null,
      signedTimestamp: null,
    });
    if (c.deleted_at) return park(DeliveryError.ENDPOINT_DELETED);
    if (!c.enabled) return park(DeliveryError.ENDPOINT_DISABLED);
    const problem = deliveryUrlProblem(c.url, c.mode, this.config.webhookTestAllowedSchemes);
    if (problem) return park(problem);

    const url = new URL(c.url);
    // One deadline for the whole attempt: resolving, connecting and answering.
    const deadline = performance.now() + this.config.webhookTimeoutMs;
    let target: ResolvedAddress;
    try {
      target = await withDeadline(
        resolveTarget(hostOf(url), {
          allowPrivate: this.config.webhookAllowPrivateTargets,
          dnsServers: this.config.webhookDnsServers,
        }),
        this.config.webhookTimeoutMs,
        () =>
          new TargetRefused(
            'DNS_FAILED',
            `${hostOf(url)} did not resolve within ${this.config.webhookTimeoutMs} ms`,
          ),
      );
    } catch (err) {
      const e =
        err instanceof TargetRefused
          ? `${err.code}: ${err.message}`
          : `DNS_FAILED: ${(err as Error).message}`;
      return this.failure(c, { statusCode: null, excerpt: null, error: e }, null, null);
    }
    let secret: string;
    try {
      secret = await this.secretOf(c);
    } catch (err) {
      this.logger.error(
        `endpoint ${c.endpoint_id}: signing secret unreadable (${(err as Error).message})`,
      );
      return this.failure(
        c,
        {
          statusCode: null,
          excerpt: null,
          error: 'SECRET_UNREADABLE: the signing secret cannot be decrypted with ENCRYPTION_KEY',
        },
        target,
        null,
      );
    }
    const body = Buffer.from(c.body, 'utf8');
    const unixSeconds = Math.floor(this.clock.nowMs() / 1000);
    const headers = deliveryHeaders({
      secret,
      body,
      deliveryId: c.id,
      eventType: c.event_type,
      unixSeconds,
    });
    const outcome = await sendWebhook({
      url,
      target,
      headers,
      body,
      timeoutMs: Math.max(1, Math.round(deadline - performance.now())),
      signal,
    });
    if (
      outcome.error === null &&
      outcome.statusCode !== null &&
      outcome.statusCode >= 200 &&
      outcome.statusCode < 300
    ) {
      return {
        status: 'DELIVERED',
        statusCode: outcome.statusCode,
        error: null,
        excerpt: outcome.excerpt,
        nextAttemptAt: null,
        target,
        signedTimestamp: unixSeconds,
      };
    }
    return this.failure(c, outcome, target, unixSeconds);
  }

  private failure(
    c: Claimed,
    outcome: SendOutcome,
    target: ResolvedAddress | null,
    signedTimestamp: number | null,
  ): Result {
    const error = outcome.error ?? `HTTP_${outcome.statusCode}`;
    const delay = nextRetryDelayMs(c.cycle_attempts + 1);
    return {
      status: delay === null ? 'PARKED' : 'RETRYING',
      statusCode: outcome.statusCode,
      error,
      excerpt: outcome.excerpt,
      nextAttemptAt: delay === null ? null : new Date(this.clock.nowMs() + delay),
      target,
      signedTimestamp,
    };
  }

  /**
   * The endpoint's secret as it is when the attempt is signed, not when it was
   * claimed: a rotation while the host was resolving must already apply (no
   * grace period). A legacy endpoint without one gets one sealed now (nothing
   * goes out unsigned).
   */
  private async secretOf(c: Claimed): Promise<string> {
    const [current] = (await this.txHost.tx.query(
      `SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1`,
      [c.endpoint_id],
    )) as { secret_ciphertext: string | null }[];
    if (current?.secret_ciphertext)
      return openSecret(this.config.encryptionKey, current.secret_ciphertext);
    const sealed = sealSecret(this.config.encryptionKey, newEndpointSecret());
    await this.txHost.tx.query(
      `UPDATE webhook_endpoints SET secret_ciphertext = $2 WHERE id = $1 AND secret_ciphertext IS NULL`,
      [c.endpoint_id, sealed],
    );
    const [row] = (await this.txHost.tx.query(
      `SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1`,
      [c.endpoint_id],
    )) as { secret_ciphertext: string }[];
    return openSecret(this.config.encryptionKey, row.secret_ciphertext);
  }

  private async record(c: Claimed, r: Result, startedAt: Date, durationMs: number): Promise<void> {
    const now = this.clock.now();
    await this.txHost.tx.query(
      `WITH attempt AS (
         INSERT INTO webhook_delivery_attempts
           (delivery_id, endpoint_id, attempt_number, url, target_address, signed_timestamp, started_at, duration_ms, status_code, response_excerpt, error, worker)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       )
       UPDATE webhook_deliveries
          SET status = $13, attempts = attempts + 1, cycle_attempts = cycle_attempts + 1,
              next_attempt_at = $14, last_attempt_at = $7, last_status_code = $9, last_error = $11,
              delivered_at = CASE WHEN $13 = 'DELIVERED' THEN $15::timestamptz ELSE delivered_at END,
              locked_until = NULL, locked_by = NULL, updated_at = $15
        WHERE id = $1 AND locked_by = $12`,
      [
        c.id,
        c.endpoint_id,
        c.attempts + 1,
        c.url,
        r.target?.address ?? null,
        r.signedTimestamp,
        startedAt,
        durationMs,
        r.statusCode,
        r.excerpt === null ? null : r.excerpt.replace(/\u0000/g, ''),
        r.error,
        this.workerId,
        r.status,
        r.nextAttemptAt,
        now,
      ],
    );
  }
}
