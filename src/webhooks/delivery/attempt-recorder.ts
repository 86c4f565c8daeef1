import type { Clock } from '../../common/clock/clock';
import type { AttemptResult } from './delivery-attempt';
import type {
  AttemptRecord,
  ClaimedDelivery as Claimed,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository';

/** Finished attempts are written together, at most this many per statement. */
export const RECORD_BATCH = 200;

/**
 * The recorder of the webhook dispatcher's three parts: writes finished
 * attempts (the attempt row, the delivery's new status, its lease ended) in
 * batches, under the claiming worker's id so a lease another replica took
 * over is not overwritten. One per dispatcher.
 */
export class AttemptRecorder {
  private pendingRecords: {
    claimed: Claimed;
    record: AttemptRecord;
    done: (err?: Error) => void;
  }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly clock: Clock,
    private readonly workerId: string,
  ) {}

  /** Resolves once every record queued so far is written (or failed). */
  async settled(): Promise<void> {
    await this.flushing;
  }

  /**
   * Queues the attempt's record and resolves once it is written. Records
   * finishing together are written in one statement (RECORD_BATCH at most):
   * one write is in progress at a time, and what finished meanwhile goes in
   * the next.
   */
  record(c: Claimed, r: AttemptResult, startedAt: Date, durationMs: number): Promise<void> {
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
