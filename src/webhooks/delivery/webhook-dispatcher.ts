import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';

import { Injectable, Logger } from '@nestjs/common';

import { Clock } from '../../common/clock/clock';
import { AppConfig } from '../../config/app-config';
import { WorkerLane } from '../../database/worker-lane';
import { AttemptRecorder } from './attempt-recorder';
import { DeliveryAttempt } from './delivery-attempt';
import { DeliveryAgents, deliveryAgents } from './http-sender';
import {
  ClaimedDelivery as Claimed,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository';
import { WebhookMetrics } from './webhook-metrics';

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
/**
 * At most this many requests in flight from one replica. Sockets waiting on a
 * slow consumer are cheap; a high cap keeps a few dead endpoints (at most 4
 * slots each) from occupying every slot and delaying healthy ones.
 */
export const MAX_IN_FLIGHT = 256;
/** A claim holds a delivery this long beyond the request deadline; then another replica may take it. */
export const LEASE_MARGIN_MS = 50_000;

interface InFlight {
  endpointId: number;
  abort: AbortController;
  done: Promise<void>;
}

/**
 * Delivers due deliveries: the pump of three parts (this claims and paces;
 * `DeliveryAttempt` makes one attempt; `AttemptRecorder` writes how it
 * ended). Claims them with FOR UPDATE SKIP LOCKED and a
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
  private readonly recorder: AttemptRecorder;
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
    private readonly attempts: DeliveryAttempt,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly metrics: WebhookMetrics,
    private readonly lane: WorkerLane,
  ) {
    this.recorder = new AttemptRecorder(deliveries, clock, this.workerId);
  }

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
    await this.recorder.settled();
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
    const result = await this.attempts.run(c, signal, claimedAt, this.agents);
    if (signal.aborted) return;
    const durationMs = Math.round(performance.now() - t0);
    this.adapt(c.endpoint_id, result.status === 'DELIVERED' && durationMs <= SLOW_ATTEMPT_MS);
    answered();
    await this.recorder.record(c, result, startedAt, durationMs);
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
}
