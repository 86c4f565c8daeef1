import { createHmac, timingSafeEqual } from 'node:crypto';

import type { WebhookEvent } from './events.js';

/** Why a webhook was refused; answer it 400 (or 401), never 2xx. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifiedWebhook<T = WebhookEvent> {
  /** X-Webhook-Id: the delivery's id, the same on every retry of it (dedupe on it). */
  id: string;
  /** X-Webhook-Event, e.g. `invoice.paid` (also `event.type`, which narrows `event.data`). */
  type: string;
  /** The signed timestamp (v2), in unix seconds. */
  timestamp?: number;
  /** Which signature was checked. */
  version: 'v2' | 'v1';
  /**
   * The parsed body, typed by its `type`: `{ id, type, created_at, mode,
   * app_id, schema_version, data }` (`id` a number, the same as X-Webhook-Id).
   */
  event: T;
}

export interface VerifyOptions {
  /** How far the v2 timestamp may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /**
   * Accept a delivery signed only with v1 (HMAC of the body, no timestamp,
   * so no replay window). Default false: v2 is required.
   */
  allowV1?: boolean;
  /** For tests: the current unix time in seconds. */
  nowSeconds?: number;
}

type Headers = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: Headers, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const h = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(h).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : h[key];
  return Array.isArray(value) ? value[0] : value;
}

function sameHex(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(given, 'hex');
  return a.length === b.length && given.length === expected.length && timingSafeEqual(a, b);
}

/**
 * Checks a Joma webhook before anything trusts it: the raw body bytes (not
 * re-serialized JSON), the request's headers, and the endpoint's signing
 * secret (`whsec_...`). v2 (`X-Webhook-Signature-V2: t=<unix>,v1=<hex>`,
 * HMAC-SHA256 of `<unix>.` + body) is checked in constant time and refused
 * outside the tolerance; v1 (`X-Webhook-Signature`, HMAC of the body) only
 * with `allowV1`. Throws WebhookVerificationError; returns the parsed event.
 */
export function verifyWebhook<T = WebhookEvent>(
  rawBody: Buffer | string,
  headers: Headers,
  secret: string,
  options: VerifyOptions = {},
): VerifiedWebhook<T> {
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8');
  const id = header(headers, 'x-webhook-id');
  const type = header(headers, 'x-webhook-event');
  if (!id || !type)
    throw new WebhookVerificationError('X-Webhook-Id and X-Webhook-Event are required');
  const v2 = header(headers, 'x-webhook-signature-v2');
  let version: 'v1' | 'v2';
  let timestamp: number | undefined;
  if (v2) {
    const parts = Object.fromEntries(v2.split(',').map((p) => p.trim().split('=', 2)));
    timestamp = Number(parts.t);
    if (!Number.isSafeInteger(timestamp) || !parts.v1)
      throw new WebhookVerificationError('malformed X-Webhook-Signature-V2');
    const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
    if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300))
      throw new WebhookVerificationError(
        'timestamp outside the tolerance (a replay, or a skewed clock)',
      );
    const expected = createHmac('sha256', secret)
      .update(`${timestamp}.`)
      .update(body)
      .digest('hex');
    if (!sameHex(expected, parts.v1)) throw new WebhookVerificationError('v2 signature mismatch');
    version = 'v2';
  } else {
    const v1 = header(headers, 'x-webhook-signature');
    if (!options.allowV1 || !v1) throw new WebhookVerificationError('no acceptable signature');
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    if (!sameHex(expected, v1)) throw new WebhookVerificationError('v1 signature mismatch');
    version = 'v1';
  }
  let event: T;
  try {
    event = JSON.parse(body.toString('utf8')) as T;
  } catch {
    throw new WebhookVerificationError('body is not JSON');
  }
  return { id, type, timestamp, version, event };
}

/**
 * Remembers delivery ids (X-Webhook-Id) for a while, so a retried delivery
 * is acknowledged without being processed twice. In memory, one process:
 * with several consumer processes, keep the ids in your database under a
 * unique key instead (insert-or-skip in the same transaction as the work).
 */
export class WebhookDeduper {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 24 * 3600_000,
    private readonly maxIds = 100_000,
  ) {}

  /** True the first time an id is offered (process it); false for a repeat (only acknowledge). */
  firstTime(id: string, nowMs = Date.now()): boolean {
    const until = this.seen.get(id);
    if (until !== undefined && until > nowMs) return false;
    if (this.seen.size >= this.maxIds) {
      for (const [key, t] of this.seen)
        if (t <= nowMs || this.seen.size >= this.maxIds) this.seen.delete(key);
    }
    this.seen.set(id, nowMs + this.ttlMs);
    return true;
  }
}
