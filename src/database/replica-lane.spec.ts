import type { ChangeFeed } from './change-feed';
import { ReplicaCache } from './change-feed';
import { onReplicaLane, readingOnReplica } from './replica-lane';

/** A change feed at rest: no topic has changed (stamps stay 0). */
const quietFeed = { now: () => 0, stamp: () => 0 } as unknown as ChangeFeed;

describe('ReplicaCache and the replica lane', () => {
  it('keeps what it loads on the primary, and never what it loads through the replica (a standby may not have replayed the change that bumped the stamp)', async () => {
    const cache = new ReplicaCache<{ id: number; name: string }>(quietFeed, 10_000, () => 0);
    let loads = 0;
    const load = (name: string) => () => {
      loads++;
      return Promise.resolve({ id: 1, name });
    };
    const onReplica = await onReplicaLane(async () => {
      expect(readingOnReplica()).toBe(true);
      return cache.get('1', () => 'app:1', load('stale, from the replica'));
    });
    expect(onReplica?.name).toBe('stale, from the replica');
    expect(readingOnReplica()).toBe(false);
    expect(cache.peek('1')).toBeUndefined();
    const onPrimary = await cache.get('1', () => 'app:1', load('from the primary'));
    expect(onPrimary?.name).toBe('from the primary');
    expect(cache.peek('1')?.name).toBe('from the primary');
    // A hit stored from the primary serves the replica lane too.
    await onReplicaLane(() => cache.get('1', () => 'app:1', load('not loaded')));
    expect(loads).toBe(2);
  });
});
