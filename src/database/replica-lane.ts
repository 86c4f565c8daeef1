import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whether the code running now reads through the read replica
 * (`ReplicaReads.read`). Caches filled by change-feed stamps must not keep
 * what they load there: a row read from a replica that has not replayed a
 * change yet would be stored under the stamp that change already bumped,
 * and served stale until its time-to-live ends.
 */
const replicaLane = new AsyncLocalStorage<true>();

/** Runs `fn` marked as reading through the replica. */
export function onReplicaLane<T>(fn: () => Promise<T>): Promise<T> {
  return replicaLane.run(true, fn);
}

/** True inside `onReplicaLane`. */
export function readingOnReplica(): boolean {
  return replicaLane.getStore() === true;
}
