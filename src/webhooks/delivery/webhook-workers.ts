import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { PgListener } from '../../database/pg-listener';
import { WorkerLane } from '../../database/worker-lane';
import { WebhookDispatcher } from './webhook-dispatcher';
import { DELIVERIES_CHANNEL, EVENTS_CHANNEL, FANOUT_BATCH, WebhookFanout } from './webhook-fanout';
import { WebhookMetrics } from './webhook-metrics';

/**
 * Runs fan-out and delivery in this process when WORKERS_ENABLED (tests start
 * it explicitly), on the workers' own connections (WorkerLane). Woken by
 * NOTIFY (an event committed, deliveries created or re-sent) and by a poll
 * every webhookPollIntervalMs as the fallback, which also picks up retries as
 * they fall due. Stops cleanly on app close.
 */
@Injectable()
export class WebhookWorkers implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookWorkers.name);
  private listener: PgListener | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private fanningOut: Promise<void> | null = null;
  private fanoutAgain = false;

  constructor(
    private readonly config: AppConfig,
    private readonly fanout: WebhookFanout,
    private readonly dispatcher: WebhookDispatcher,
    private readonly metrics: WebhookMetrics,
    private readonly lane: WorkerLane,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.workersEnabled) await this.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  async start(): Promise<void> {
    if (this.running) return;
    await this.lane.open();
    if (this.running) return;
    this.running = true;
    this.dispatcher.start();
    this.listener = new PgListener(
      // LISTEN needs a session of its own: not through a transaction pooler.
      this.config.databaseDirectUrl,
      [EVENTS_CHANNEL, DELIVERIES_CHANNEL],
      (channel, payload) => {
        if (channel === EVENTS_CHANNEL) void this.fanOut();
        // Our own fan-out's NOTIFY: it already pumped (below).
        else if (payload !== this.dispatcher.workerId) void this.dispatcher.pump();
      },
      'joma-webhook-listener',
    );
    await this.listener.start();
    this.timer = setInterval(() => this.wake(), this.config.webhookPollIntervalMs);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    await this.halt();
    await this.dispatcher.stop();
  }

  /**
   * Stops like a killed process: claims in flight stay leased until their
   * lease runs out (drills and tests of lease recovery).
   */
  async crash(): Promise<void> {
    await this.halt();
    await this.dispatcher.stop({ handBack: false });
  }

  /** Stops waking up and listening, and lets a fan-out in progress finish. */
  private async halt(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.listener?.stop();
    this.listener = null;
    await this.fanningOut;
  }

  /**
   * While stopped: turns every recorded event into its deliveries, without
   * sending any (a benchmark builds a backlog this way, then starts the
   * workers to time its drain). How many events were fanned out.
   */
  async fanOutAllStopped(): Promise<number> {
    if (this.running) throw new Error('fanOutAllStopped: stop the workers first');
    let total = 0;
    for (let batch = await this.fanout.fanOutBatch(); batch.events > 0;) {
      total += batch.events;
      batch = await this.fanout.fanOutBatch();
    }
    return total;
  }

  /** Look for new events and due deliveries now (e.g. after a test moved the clock). */
  wake(): void {
    if (!this.running) return;
    void this.fanOut();
    void this.dispatcher.pump();
  }

  private fanOut(): Promise<void> {
    if (!this.running) return Promise.resolve();
    if (this.fanningOut) {
      this.fanoutAgain = true;
      return this.fanningOut;
    }
    this.fanningOut = this.lane
      .run(() => this.fanOutLoop())
      .finally(() => {
        this.fanningOut = null;
      });
    return this.fanningOut;
  }

  private async fanOutLoop(): Promise<void> {
    try {
      do {
        this.fanoutAgain = false;
        for (;;) {
          const r = await this.fanout.fanOutBatch(FANOUT_BATCH, this.dispatcher.workerId);
          if (r.deliveries) this.metrics.fannedOut.inc({ routed: 'true' }, r.deliveries);
          if (r.undeliverable) this.metrics.fannedOut.inc({ routed: 'false' }, r.undeliverable);
          if (r.deliveries > 0) void this.dispatcher.pump();
          if (r.events === 0 || !this.running) break;
        }
      } while (this.fanoutAgain && this.running);
    } catch (err) {
      this.logger.error(`webhook fan-out failed: ${(err as Error).message}`);
    }
  }
}
