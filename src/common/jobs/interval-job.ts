import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import type { AppConfig } from '../../config/app-config';

/**
 * A background job that runs every `everyMs` on every replica with workers
 * enabled (replica safety is the job's own: leases, SKIP LOCKED, claims).
 * A tick never overlaps the previous one on this replica, and a failing tick
 * is logged, never thrown into the timer. On shutdown the job stops ticking
 * and a tick still running is waited for, before the pool closes under it.
 */
export abstract class IntervalJob<R = unknown> implements OnApplicationBootstrap, OnModuleDestroy {
  protected abstract readonly name: string;
  protected abstract readonly everyMs: number;
  private readonly log = new Logger('Jobs');
  private running = false;
  private current: Promise<unknown> | null = null;

  constructor(
    protected readonly scheduler: SchedulerRegistry,
    protected readonly config: AppConfig,
  ) {}

  /** Whether this replica runs the job (default: when workers are enabled). */
  protected enabled(): boolean {
    return this.config.workersEnabled;
  }

  /** One tick's work; what it returns is handed back by `tick()`. */
  protected abstract work(): Promise<R>;

  onApplicationBootstrap(): void {
    if (!this.enabled()) return;
    this.scheduler.addInterval(
      this.name,
      setInterval(() => void this.tick(), this.everyMs),
    );
  }

  async onModuleDestroy(): Promise<void> {
    if (this.scheduler.doesExist('interval', this.name)) this.scheduler.deleteInterval(this.name);
    await this.current?.catch(() => undefined);
  }

  /** Runs one tick now (tests, operators); null while one is already running or when it failed. */
  async tick(): Promise<R | null> {
    if (this.running) return null;
    this.running = true;
    try {
      const work = this.work();
      this.current = work;
      return await work;
    } catch (err) {
      this.log.error(`${this.name} failed: ${(err as Error).message}`);
      return null;
    } finally {
      this.running = false;
      this.current = null;
    }
  }
}
