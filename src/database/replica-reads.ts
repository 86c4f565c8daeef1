import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import type { Pool, QueryConfig } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { JomaDataSource } from './data-source-options';
import { connectionFailed, databaseUnavailable } from './database-errors';
import { poolOf, runStatement } from './hot-query';
import { onReplicaLane } from './replica-lane';
import { sql } from './sql';
import { onSource } from './worker-lane';

/** Where a replica read was served, and why the primary when it was (the metric's labels). */
export type ReadServedBy =
  | 'replica'
  /** The replica had not replayed the primary's position within DB_READ_MAX_WAIT_MS. */
  | 'primary:lagging'
  /** The replica did not answer (down, not open yet, not a standby), or failed the read. */
  | 'primary:unavailable'
  /** Called inside a transaction: the read belongs to it. */
  | 'primary:in_transaction';

/** How often a lagging replica is asked again while a read waits for it. */
const POLL_MS = 10;
/** How long after a failed open the replica is tried again. */
const REOPEN_MS = 5_000;
/**
 * The caught-up question's own limit on the replica (at least 1 s, or
 * DB_READ_MAX_WAIT_MS when longer): a replica that cannot answer
 * `pg_last_wal_replay_lsn()` in that time is treated as down. Without it a
 * pooled connection to a host that went silent (no reset: a cut network, a
 * frozen VM) waited for TCP to give up, about 15 minutes, and the list with it.
 */
const PROBE_TIMEOUT_MIN_MS = 1_000;
/** After the replica failed or did not answer, reads go to the primary without asking it for this long. */
const REST_MS = 5_000;

/**
 * The read replica (DATABASE_READ_URL, decisions section 21): a pool of
 * DB_READ_POOL_SIZE connections to a streaming standby, used only through
 * `read()` by the lists, their CSV exports and the daily figures, never by
 * a money decision, an idempotent replay or anything inside a transaction.
 *
 * Read-your-writes without per-client state: before a read, the primary's
 * WAL position (`pg_current_wal_lsn()`) is taken. Every transaction
 * committed before that moment (the client's own writes included: they
 * were answered, so committed, and with synchronous_commit on their commit
 * records are written) lies at or before it. The read runs on the replica
 * once `pg_last_wal_replay_lsn()` there has reached that position (asked
 * every 10 ms for up to DB_READ_MAX_WAIT_MS), else on the primary. A
 * replica that is down, promoted (its replay position stops) or not a
 * standby at all (NULL) is never caught up, so the primary serves.
 *
 * Without DATABASE_READ_URL `read()` just runs the function: one pool.
 * The repositories do not change: inside `read()` their `txHost.tx` is the
 * replica's manager (the lane mechanism of `WorkerLane`), so each feature's
 * SQL stays where it is.
 */
@Injectable()
export class ReplicaReads implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ReplicaReads');
  private source: DataSource | null = null;
  private reopenTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private lastWarnMs = 0;
  /** Until when the replica rests after failing (reads go to the primary without asking it). */
  private restingUntil = 0;
  /** Reads by where they were served (`joma_db_replica_reads_total`). */
  readonly served = new Map<ReadServedBy, number>();

  constructor(
    @InjectDataSource() private readonly primary: DataSource,
    private readonly cls: ClsService,
    private readonly config: AppConfig,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.databaseReadUrl) await this.open();
  }

  /** The replica's pool, once open (for its metrics). */
  get pool(): Pool | null {
    return this.source ? poolOf(this.source) : null;
  }

  /**
   * Runs `read` (a list page, an export's count and batches, the daily
   * figures: statements through the repositories' `txHost.tx`) on the
   * replica when it has caught up with the primary, else on the primary.
   * A read the replica fails for want of a connection (or cancels for a
   * recovery conflict, or does not answer within DB_STATEMENT_TIMEOUT_MS
   * plus a second) runs again on the primary; when its connection failed
   * (not a statement timeout or a conflict) the replica then rests for 5 s:
   * reads go to the primary without asking it.
   */
  async read<T>(read: () => Promise<T>): Promise<T> {
    const replica = this.source;
    if (!replica) return read();
    if (this.txHost.isTransactionActive()) {
      this.count('primary:in_transaction');
      return read();
    }
    if (Date.now() < this.restingUntil) {
      this.fellBack('primary:unavailable');
      return read();
    }
    const behind = await this.behind(replica);
    if (behind) {
      this.fellBack(behind);
      return read();
    }
    try {
      const result = await onReplicaLane(() => onSource(this.cls, replica, read, 'inherit'));
      this.count('replica');
      return result;
    } catch (err) {
      if (!databaseUnavailable(err)) throw err;
      if (connectionFailed(err)) this.rest();
      this.fellBack('primary:unavailable', err);
      return read();
    }
  }

  private rest(): void {
    this.restingUntil = Date.now() + REST_MS;
  }

  /** Null when the replica has replayed the primary's current WAL position; else why not. */
  private async behind(replica: DataSource): Promise<ReadServedBy | null> {
    // On the primary: a failure here is the primary's, answered as any other (503).
    const primaryAt = await sql(this.primary.manager).one<{ lsn: string }>(
      'SELECT pg_current_wal_lsn()::text AS lsn',
    );
    const deadline = Date.now() + this.config.dbReadMaxWaitMs;
    for (;;) {
      let caughtUp: boolean | null | undefined;
      try {
        caughtUp = await this.caughtUp(replica, primaryAt!.lsn);
      } catch {
        return 'primary:unavailable';
      }
      if (caughtUp) return null;
      // NULL: not a standby (a misconfigured URL, or a server never in recovery).
      if (caughtUp === null) return 'primary:unavailable';
      const left = deadline - Date.now();
      if (left <= 0) return 'primary:lagging';
      await new Promise((ok) => setTimeout(ok, Math.min(POLL_MS, left)));
    }
  }

  /**
   * Whether the replica has replayed `lsn` (null: it is not a standby). Given
   * up after the probe's limit, the wait for a pooled connection or a new
   * one included (a silent host holds a connect as long as
   * DB_ACQUIRE_TIMEOUT_MS): the read then runs on the primary. A connection
   * that failed, now or after the limit, makes the replica rest.
   */
  private async caughtUp(replica: DataSource, lsn: string): Promise<boolean | null | undefined> {
    const limit = Math.max(PROBE_TIMEOUT_MIN_MS, this.config.dbReadMaxWaitMs);
    // pg's per-query `query_timeout` (node-postgres PR #3074; its typings lack it).
    const probe: QueryConfig & { query_timeout: number } = {
      text: 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught_up',
      values: [lsn],
      query_timeout: limit,
    };
    const asked = runStatement(replica.manager, probe);
    asked.catch((err: unknown) => {
      if (connectionFailed(err)) this.rest();
    });
    // Half a second more for the wait for a connection: a pooled one that is silent fails
    // first, by its query_timeout, and makes the replica rest before the read moves on.
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<null>((ok) => (timer = setTimeout(() => ok(null), limit + 500)));
    try {
      const answer = await Promise.race([asked, gaveUp]);
      if (!answer) throw new Error(`The replica did not answer within ${limit} ms`);
      return (answer.rows[0] as { caught_up: boolean | null } | undefined)?.caught_up;
    } finally {
      clearTimeout(timer);
    }
  }

  private count(servedBy: ReadServedBy): void {
    this.served.set(servedBy, (this.served.get(servedBy) ?? 0) + 1);
  }

  /** Counted every time; said at most once a minute. */
  private fellBack(why: ReadServedBy, err?: unknown): void {
    this.count(why);
    const now = Date.now();
    if (now - this.lastWarnMs < 60_000) return;
    this.lastWarnMs = now;
    const detail = err ? `: ${databaseUnavailable(err)}` : '';
    this.logger.warn(
      `A read meant for the replica ran on the primary (${why.slice('primary:'.length)}${detail}); counted in joma_db_replica_reads_total`,
    );
  }

  /** One try; a replica that cannot be reached now is tried again every 5 s, reads going to the primary meanwhile. */
  private async open(): Promise<void> {
    // The primary's options (its entities, session settings, statement naming) on the replica's URL.
    const options = this.primary.options as DataSourceOptions & { extra?: Record<string, unknown> };
    const source = new JomaDataSource({
      ...options,
      url: this.config.databaseReadUrl,
      extra: {
        ...options.extra,
        max: this.config.dbReadPoolSize,
        application_name: 'joma-read',
        // A read the server would have cancelled (statement_timeout) is given up by the
        // client a second later: a silent replica host cannot hold a list for TCP's minutes.
        query_timeout: this.config.dbStatementTimeoutMs + 1_000,
      },
    } as DataSourceOptions);
    try {
      await source.initialize();
      if (this.stopped) {
        await source.destroy();
        return;
      }
      this.source = source;
    } catch (err) {
      this.logger.warn(
        `The read replica cannot be reached (${databaseUnavailable(err) ?? (err as Error).name}); reads go to the primary, trying again in ${REOPEN_MS / 1000} s`,
      );
      if (this.stopped) return;
      this.reopenTimer = setTimeout(() => {
        this.reopenTimer = null;
        void this.open();
      }, REOPEN_MS);
      this.reopenTimer.unref();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.reopenTimer) clearTimeout(this.reopenTimer);
    const source = this.source;
    this.source = null;
    if (source?.isInitialized) await source.destroy();
  }
}
