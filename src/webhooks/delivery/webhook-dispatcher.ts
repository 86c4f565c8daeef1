import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Clock } from '../../common/clock/clock';
import { AppConfig } from '../../config/app-config';
import { WorkerLane } from '../../database/worker-lane';
import { DeliveryError, DeliveryStatus } from './delivery-status';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import { DeliveryAgents, deliveryAgents, sendWebhook, SendOutcome } from './http-sender';
import { nextRetryDelayMs } from './retry-schedule';
import { deliveryHeaders } from './signer';
import {
  AttemptRecord as AttemptRecordOf,
  ClaimedDelivery as Claimed,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository';
import { WebhookMetrics } from './webhook-metrics';
import {
  resolveTarget,
  ResolvedAddress,
  TargetRefused,
  withDeadline,
} from '../security/target-resolver';
import { deliveryUrlProblem, hostOf } from '../security/url-policy';

/**
 * Requests in flight to one endpoint from one replica adapt to how it
 * answers (additive increase, multiplicative decrease): an endpoint starts
 * at PER_ENDPOINT_START; each 2xx within SLOW_ATTEMPT_MS raises its cap by
 * one up to PER_ENDPOINT_MAX; any failure (non-2xx, timeout, network error)
 * or a slow answer halves it, down to 1. A healthy fast endpoint soon gets
 * 64 parallel requests; a dead or slow one holds one or two slots.
 */
export const PER_ENDPOINT_START = 4;
export const PER_ENDPOINT_MAX = 64;
export const SLOW_ATTEMPT_MS = 1000;
/** A claim's copy of the endpoint's sealed secret is used if the attempt is signed this soon after the claim. */
export const CLAIMED_SECRET_FRESH_MS = 5;
/** Finished attempts are written together, at most this many per statement. */
export const RECORD_BATCH = 200;
/**
 * At most this many requests in flight from one replica. Sockets waiting on a
 * slow consumer are cheap; a high cap keeps a few dead endpoints (at most 4
 * slots each) from occupying every slot and delaying healthy ones.
 */
export const MAX_IN_FLIGHT = 256;
/** A claim holds a delivery this long beyond the request deadline; then another replica may take it. */
export const LEASE_MARGIN_MS = 50_000;

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
  /** Each endpoint's current cap (absent: PER_ENDPOINT_START). */
  private readonly caps = new Map<number, number>();
  private agents: DeliveryAgents = deliveryAgents(PER_ENDPOINT_MAX);
  /** Finished attempts waiting to be written, and whether a write is scheduled. */
  private pendingRecords: {
    claimed: Claimed;
    record: AttemptRecordOf;
    done: (err?: Error) => void;
  }[] = [];
  private flushing: Promise<void> | null = null;
  private running = false;
  /** Whether stopping hands claims back (false: leave them leased, as a killed process does). */
  private handBack = true;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  /**
   * Whether the latest claim was held back by a cap (it left out a full
   * endpoint, or gave one all its free slots): then due rows may be waiting
   * for a slot, and each finished attempt pumps. Otherwise that claim took
   * every due row, and only new work (NOTIFY, the poll) needs another.
   */
  private heldBack = false;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly metrics: WebhookMetrics,
    private readonly lane: WorkerLane,
  ) {}

  get leaseMs(): number {
    return this.config.webhookTimeoutMs + LEASE_MARGIN_MS;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  start(): void {
    this.running = true;
    this.handBack = true;
  }

  /** The current cap of an endpoint (for tests and metrics). */
  capOf(endpointId: number): number {
    return this.caps.get(endpointId) ?? PER_ENDPOINT_START;
  }

  /** Claims and launches as much due work as the caps allow. Safe to call often. */
  pump(): Promise<void> {
    if (!this.running) return Promise.resolve();
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    // Claims, attempts and their records run on the workers' connections.
    this.pumping = this.lane
      .run(() => this.pumpLoop())
      .finally(() => {
        this.pumping = null;
      });
    return this.pumping;
  }

  private async pumpLoop(): Promise<void> {
    try {
      do {
        this.pumpAgain = false;
        while (this.running && this.inFlight.size < MAX_IN_FLIGHT) {
          const asked = MAX_IN_FLIGHT - this.inFlight.size;
          const { claimed, filledUp, leftOutFull } = await this.claim(asked);
          if (!this.running) {
            await this.release(claimed.map((c) => c.id));
            return;
          }
          for (const c of claimed) this.launch(c);
          this.heldBack = filledUp || leftOutFull;
          // Another claim can find more only if this one was cut short, by
          // `asked` or by filling an endpoint up (left out next time);
          // otherwise it took every due row it may take now.
          if (claimed.length < asked && !filledUp) break;
        }
      } while (this.pumpAgain && this.running);
    } catch (err) {
      this.logger.error(`claiming deliveries failed: ${(err as Error).message}`);
    }
  }

  /**
   * Stops claiming and aborts requests in flight (their results are
   * dropped). With `handBack` (the default) their deliveries are handed back,
   * lease cleared, so another replica retries them at once; without it they
   * stay leased until the lease runs out, which is what a killed process
   * leaves behind.
   */
  async stop(opts: { handBack?: boolean } = {}): Promise<void> {
    this.handBack = opts.handBack ?? true;
    this.running = false;
    await this.pumping;
    const ids = [...this.inFlight.keys()];
    for (const f of this.inFlight.values()) f.abort.abort();
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    await this.flushing;
    await this.release(ids);
    this.agents.http.destroy();
    this.agents.https.destroy();
    this.agents = deliveryAgents(PER_ENDPOINT_MAX);
  }

  private async release(ids: number[]): Promise<void> {
    if (ids.length === 0 || !this.handBack) return;
    await this.deliveries
      .releaseLeases(ids, this.workerId)
      .catch((err: Error) => this.logger.warn(`releasing leases failed: ${err.message}`));
  }

  /**
   * Claims up to `max`, each endpoint at most its free slots. `filledUp`:
   * some endpoint got all its free slots; `leftOutFull`: some endpoint had
   * none. Either way due rows may be waiting for a slot to free up.
   */
  private async claim(
    max: number,
  ): Promise<{ claimed: Claimed[]; filledUp: boolean; leftOutFull: boolean }> {
    const now = this.clock.now();
    const full: number[] = [];
    const busyIds: number[] = [];
    const busySlots: number[] = [];
    const allowance = new Map<number, number>();
    for (const endpointId of new Set([...this.perEndpoint.keys(), ...this.caps.keys()])) {
      const free = this.capOf(endpointId) - (this.perEndpoint.get(endpointId) ?? 0);
      if (free <= 0) full.push(endpointId);
      else {
        busyIds.push(endpointId);
        busySlots.push(free);
        allowance.set(endpointId, free);
      }
    }
    const claimed = await this.deliveries.claimDue({
      now,
      max,
      fullEndpoints: full,
      busy: { endpointIds: busyIds, slots: busySlots },
      perEndpoint: PER_ENDPOINT_START,
      lockedUntil: new Date(now.getTime() + this.leaseMs),
      workerId: this.workerId,
    });
    const got = new Map<number, number>();
    for (const c of claimed) got.set(c.endpoint_id, (got.get(c.endpoint_id) ?? 0) + 1);
    const filledUp = [...got].some(([id, n]) => n >= (allowance.get(id) ?? PER_ENDPOINT_START));
    return { claimed, filledUp, leftOutFull: full.length > 0 };
  }

  private launch(c: Claimed): void {
    const abort = new AbortController();
    const claimedAt = performance.now();
    this.perEndpoint.set(c.endpoint_id, (this.perEndpoint.get(c.endpoint_id) ?? 0) + 1);
    let slotFreed = false;
    // The endpoint's slot is freed when its answer is in (or the attempt
    // ended without one); the delivery stays leased until its record is written.
    const freeSlot = () => {
      if (slotFreed) return;
      slotFreed = true;
      const n = (this.perEndpoint.get(c.endpoint_id) ?? 1) - 1;
      if (n <= 0) this.perEndpoint.delete(c.endpoint_id);
      else this.perEndpoint.set(c.endpoint_id, n);
      // A freed slot is worth a claim only if the latest one was held back
      // by a cap (see `heldBack`); new work comes by NOTIFY or the poll.
      if (this.running && this.heldBack) setImmediate(() => void this.pump());
    };
    const done = this.attempt(c, abort.signal, claimedAt, freeSlot)
      .catch((err: Error) =>
        this.logger.error(`delivery ${c.id} failed unexpectedly: ${err.message}`),
      )
      .finally(() => {
        const atMax = this.inFlight.size >= MAX_IN_FLIGHT;
        this.inFlight.delete(c.id);
        freeSlot();
        if (this.running && atMax) setImmediate(() => void this.pump());
      });
    this.inFlight.set(c.id, { endpointId: c.endpoint_id, abort, done });
  }

  private async attempt(
    c: Claimed,
    signal: AbortSignal,
    claimedAt: number,
    answered: () => void,
  ): Promise<void> {
    const startedAt = this.clock.now();
    if (c.attempts === 0 && c.event_recorded_at)
      this.metrics.firstAttemptDelay.observe(
        Math.max(0, startedAt.getTime() - c.event_recorded_at.getTime()) / 1000,
      );
    const t0 = performance.now();
    const result = await this.execute(c, signal, claimedAt);
    if (signal.aborted) return;
    const durationMs = Math.round(performance.now() - t0);
    this.adapt(c.endpoint_id, result.status === 'DELIVERED' && durationMs <= SLOW_ATTEMPT_MS);
    answered();
    await this.record(c, result, startedAt, durationMs);
    this.metrics.attempts.inc({ outcome: result.status });
    this.metrics.attemptDuration.observe(durationMs / 1000);
  }

  /** Additive increase on a quick 2xx, multiplicative decrease otherwise (see PER_ENDPOINT_START). */
  private adapt(endpointId: number, healthy: boolean): void {
    const cap = this.capOf(endpointId);
    const next = healthy ? Math.min(PER_ENDPOINT_MAX, cap + 1) : Math.max(1, Math.floor(cap / 2));
    if (next === PER_ENDPOINT_START) this.caps.delete(endpointId);
    else this.caps.set(endpointId, next);
    if (this.caps.size > 100_000) this.caps.clear();
  }

  private async execute(c: Claimed, signal: AbortSignal, claimedAt: number): Promise<Result> {
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
      const fresh = performance.now() - claimedAt <= CLAIMED_SECRET_FRESH_MS;
      secret = await this.endpoints.signingSecret(
        c.endpoint_id,
        fresh ? c.secret_ciphertext : undefined,
      );
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
      agents: this.agents,
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
   * Queues the attempt's record and resolves once it is written. Records
   * finishing together are written in one statement (RECORD_BATCH at most):
   * one write is in progress at a time, and what finished meanwhile goes in
   * the next.
   */
  private record(c: Claimed, r: Result, startedAt: Date, durationMs: number): Promise<void> {
    return new Promise<void>((ok, fail) => {
      this.pendingRecords.push({
        claimed: c,
        record: {
          status: r.status,
          statusCode: r.statusCode,
          error: r.error,
          excerpt: r.excerpt,
          nextAttemptAt: r.nextAttemptAt,
          targetAddress: r.target?.address ?? null,
          signedTimestamp: r.signedTimestamp,
          startedAt,
          durationMs,
        },
        done: (err) => (err ? fail(err) : ok()),
      });
      if (!this.flushing) this.flushing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.pendingRecords.length > 0) {
        // Let attempts finishing in the same turn join the batch.
        await new Promise((ok) => setImmediate(ok));
        const batch = this.pendingRecords.splice(0, RECORD_BATCH);
        try {
          await this.deliveries.recordAttempts(batch, this.workerId, this.clock.now());
          for (const b of batch) b.done();
        } catch (err) {
          for (const b of batch) b.done(err as Error);
        }
      }
    } finally {
      this.flushing = null;
    }
  }
}
