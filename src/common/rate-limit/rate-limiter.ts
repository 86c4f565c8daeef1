import { Global, Injectable, Module } from '@nestjs/common';
import ipaddr from 'ipaddr.js';

import { AppConfig } from '../../config/app-config';
import { Clock } from '../clock/clock';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { TokenBuckets } from './token-buckets';

/**
 * The rate limits: app calls per app and mode (RATE_LIMIT_PER_SECOND), and
 * the public pages and gateway callbacks per client address
 * (PUBLIC_RATE_LIMIT_PER_SECOND); each a token bucket with a burst of twice
 * the rate; 0 turns a limit off. Over it: 429 RATE_LIMITED with Retry-After.
 *
 * Counted in memory, per replica, each allowing its share of the limit
 * (RATE_LIMIT_REPLICAS): no database round trip per request, and the sum
 * over the replicas is the limit, exact when the load balancer spreads an
 * app's calls evenly (documented in docs/operations.md).
 */
@Injectable()
export class RateLimiter {
  private readonly apps: TokenBuckets | null;
  private readonly clients: TokenBuckets | null;

  constructor(
    config: AppConfig,
    private readonly clock: Clock,
  ) {
    const buckets = (perSecond: number) => {
      if (perSecond <= 0) return null;
      const share = perSecond / config.rateLimitReplicas;
      return new TokenBuckets(share, Math.max(1, 2 * share));
    };
    this.apps = buckets(config.rateLimitPerSecond);
    this.clients = buckets(config.publicRateLimitPerSecond);
  }

  /** Takes one app call of the app in the mode, or throws 429. */
  takeApp(appId: number, mode: string): void {
    const refusal = this.appRefusal(appId, mode);
    if (refusal) throw refusal;
  }

  /**
   * Takes one app call of the app in the mode and answers null, or answers
   * the 429 to send: for middleware refusing a flood, where a throw and its
   * catch cost more than the rest of the limiter (bench/README.md, "Refusals").
   */
  appRefusal(appId: number, mode: string): AppError | null {
    if (!this.apps) return null;
    return refusalFor(this.apps.take(`${appId}:${mode}`, this.clock.nowMs()));
  }

  /** Takes one public request from the client address (IPv6 by its /64), or answers its 429. */
  clientRefusal(address: string | undefined): AppError | null {
    if (!this.clients) return null;
    return refusalFor(this.clients.take(clientKey(address), this.clock.nowMs()));
  }
}

const refusals = new Map<number, AppError>();

/**
 * The 429 for a wait of `waitS` seconds: one AppError per distinct wait,
 * made once (without a stack trace) and answered again for every refusal
 * after it. A flood makes thousands a second and each is read-only on the
 * way to its envelope, so none needs an error (and a message and header
 * object) of its own: making them was ~4 us of the ~60 us of CPU a
 * refusal costs (bench/README.md, "Refusals").
 */
function refusalFor(waitS: number): AppError | null {
  if (waitS <= 0) return null;
  let err = refusals.get(waitS);
  if (!err) {
    err = AppError.routine(ErrorCode.RATE_LIMITED, `Too many requests; retry after ${waitS} s`, {
      'Retry-After': String(waitS),
    });
    // Waits are whole seconds of one bucket's refill: a handful of values.
    if (refusals.size < 64) refusals.set(waitS, err);
  }
  return err;
}

/**
 * The rate-limit key of a client address: IPv4 as it is (also when written
 * IPv4-mapped), IPv6 by its /64 (one subscriber's usual allocation, so
 * rotating through one's own addresses does not escape the limit).
 */
export function clientKey(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return address ?? 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

/** RateLimiter for every module (imported by auth, whose app-key guard every feature uses; the public-page middleware gets it from the app). */
@Global()
@Module({ providers: [RateLimiter], exports: [RateLimiter] })
export class RateLimitModule {}
