import {
  Global,
  Injectable,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { AppConfig } from '../config/app-config';
import { PgListener } from './pg-listener';
import { readingOnReplica } from './replica-lane';
import { sql } from './sql';

/**
 * The topic of everything cached about one app: its keys, name, status,
 * settings and gateways. Any change of those announces it.
 */
export const appTopic = (appId: number) => `app:${appId}`;

/** Replicas tell each other that something they may cache changed, on this channel. */
export const CHANGES_CHANNEL = 'joma_changes';

/**
 * The one way replicas learn that a record they cache changed. A change is
 * announced by topic (e.g. `app:42`) inside the transaction that makes it;
 * PostgreSQL delivers the NOTIFY to every replica (this one included) only
 * when that transaction commits. Nobody registers a callback: a cache asks
 * the feed for a topic's `stamp` when it reads, and trusts what it cached
 * only while the stamp is unchanged (see `ReplicaCache`).
 *
 * A lost listener connection may have missed announcements, so every
 * (re)connect moves every stamp on: caches start empty.
 */
@Injectable()
export class ChangeFeed implements OnApplicationBootstrap, OnApplicationShutdown {
  private counter = 0;
  /** Stamps below this are stale for every topic (bumped on every (re)connect). */
  private floor = 0;
  private readonly versions = new Map<string, number>();
  private listener: PgListener | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {}

  /** The topic's current stamp: equal to an earlier one only if nothing changed in between. */
  stamp(topic: string): number {
    const v = this.versions.get(topic) ?? 0;
    return v > this.floor ? v : this.floor;
  }

  /** A value that any later change (of any topic) exceeds. */
  now(): number {
    return this.counter;
  }

  /**
   * Announces a change of `topic`, inside the transaction of the change:
   * every replica hears it when the transaction commits.
   */
  async announce(topic: string): Promise<void> {
    await sql(this.txHost.tx).rows('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, topic]);
  }

  /**
   * Marks `topic` changed on this replica at once. Call after the commit of
   * an announced change, so this replica's very next read sees it (the
   * NOTIFY arrives a moment later and marks it again).
   */
  touch(topic: string): void {
    if (this.versions.size > 100_000) this.everythingChanged();
    this.versions.set(topic, ++this.counter);
  }

  private everythingChanged(): void {
    this.versions.clear();
    this.floor = ++this.counter;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.listener = new PgListener(
      // LISTEN needs a session of its own: not through a transaction pooler.
      this.config.databaseDirectUrl,
      [CHANGES_CHANNEL],
      (_channel, payload) => {
        if (payload) this.touch(payload);
      },
      'joma-change-feed',
      () => this.everythingChanged(),
    );
    await this.listener.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listener?.stop();
    this.listener = null;
  }
}

/** Available to every feature without importing it. */
@Global()
@Module({ providers: [ChangeFeed], exports: [ChangeFeed] })
export class ChangeFeedModule {}

interface Entry<V> {
  value: V;
  topic: string;
  stamp: number;
  until: number;
}

/**
 * A per-replica cache of records that rarely change and that every request
 * needs (an app's key, its settings, its gateways). An entry is served while
 * it is younger than `ttlMs` and its topic has not been announced since it
 * was read; a read that an announcement overtook is returned but not kept.
 * Misses (null) are not cached.
 */
export class ReplicaCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly feed: ChangeFeed,
    private readonly ttlMs: number,
    private readonly nowMs: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value of `key` if it is still good, without reading anything (synchronous). */
  peek(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (hit && hit.until > this.nowMs() && this.feed.stamp(hit.topic) === hit.stamp)
      return hit.value;
    return undefined;
  }

  async get(
    key: string,
    topicOf: (value: V) => string,
    load: () => Promise<V | null>,
  ): Promise<V | null> {
    const now = this.nowMs();
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const before = this.feed.now();
    const value = await load();
    if (value === null) {
      this.entries.delete(key);
      return null;
    }
    // Read from the replica (a list's view): used for this answer, never kept (replica-lane.ts).
    if (readingOnReplica()) return value;
    const topic = topicOf(value);
    const stamp = this.feed.stamp(topic);
    if (stamp > before) return value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    // Shared by every caller until it expires: frozen, so none can change it for the others.
    Object.freeze(value);
    this.entries.set(key, { value, topic, stamp, until: now + this.ttlMs });
    return value;
  }
}
