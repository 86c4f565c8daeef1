/**
 * Token buckets in memory, one per key: `ratePerSecond` tokens flow in each
 * second up to `burst`; a request takes one. A key that has not been seen
 * is a full bucket, so the map only holds keys that spent tokens recently,
 * and keys whose buckets have refilled are swept out when the map grows.
 * Pure (time comes in as an argument) and O(1) per request.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly maxKeys = 100_000,
  ) {
    if (!(ratePerSecond > 0) || !(burst >= 1)) throw new Error('rate > 0 and burst >= 1 required');
  }

  /** Takes a token for `key` at `nowMs`: 0 if one was there, else the whole seconds to wait (>= 1). */
  take(key: string, nowMs: number): number {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.sweep(nowMs);
      bucket = { tokens: this.burst, at: nowMs };
      this.buckets.set(key, bucket);
    } else if (nowMs > bucket.at) {
      bucket.tokens = Math.min(
        this.burst,
        bucket.tokens + ((nowMs - bucket.at) * this.ratePerSecond) / 1000,
      );
      bucket.at = nowMs;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Drops full buckets (the same as absent); if none were, the oldest half. */
  private sweep(nowMs: number): void {
    const refillMs = (this.burst * 1000) / this.ratePerSecond;
    for (const [key, b] of this.buckets) if (nowMs - b.at >= refillMs) this.buckets.delete(key);
    if (this.buckets.size < this.maxKeys) return;
    let drop = Math.floor(this.buckets.size / 2);
    for (const key of this.buckets.keys()) {
      if (drop-- <= 0) break;
      this.buckets.delete(key);
    }
  }
}
