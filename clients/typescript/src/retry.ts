/** How the client retries (see `retryingFetch`). */
export interface RetryOptions {
  /** Extra attempts after the first (default 3). */
  retries?: number;
  /** Backoff base when the answer names no Retry-After (default 500 ms, doubled per attempt). */
  baseDelayMs?: number;
  /** Longest backoff between attempts (default 8 s). */
  maxDelayMs?: number;
  /**
   * Longest `Retry-After` the client waits out (default 60 s). A longer one
   * (a login lock-out of 15 minutes, say) is returned to the caller at once.
   */
  maxRetryAfterMs?: number;
  /** For tests: how to wait. */
  sleep?: (ms: number) => Promise<void>;
}

/** An attempt got no complete answer within `timeoutMs`. */
export class JomaTimeoutError extends Error {
  override readonly name = 'JomaTimeoutError';
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

/** Whether sending this request twice is harmless: a safe method, or a key the server dedupes by. */
export function isRetrySafe(request: Request): boolean {
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has('idempotency-key');
}

/** `Retry-After` in milliseconds, from either form (delta-seconds or an HTTP-date); null when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs = Date.now()): number | null {
  const s = value?.trim();
  if (!s) return null;
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * One call's lifetime: the caller's AbortSignal and its deadline. Every wait
 * of the call (an attempt, reading its body, a pause between attempts) is
 * raced against `aborted`, which this object rejects itself from a listener
 * it holds: the call settles when the caller aborts whatever the garbage
 * collector did to signals derived inside fetch (Node's undici follows a
 * Request's signal through a WeakRef, so an abort can be lost after a GC).
 */
export class CallGuard {
  readonly aborted: Promise<never>;
  private reject!: (reason: unknown) => void;
  private attempt: AbortController | null = null;
  private readonly onAbort = (): void => {
    const reason: unknown =
      this.signal?.reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.attempt?.abort(reason);
    this.reject(reason);
  };

  constructor(readonly signal?: AbortSignal | null) {
    this.aborted = new Promise<never>((_, reject) => {
      this.reject = reject;
    });
    this.aborted.catch(() => undefined);
    if (signal?.aborted) this.onAbort();
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get isAborted(): boolean {
    return this.signal?.aborted === true;
  }

  /** `work`, unless the caller aborts first. */
  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.aborted]);
  }

  /** A pause between attempts that an abort ends at once. */
  sleep(ms: number, sleep?: (ms: number) => Promise<void>): Promise<void> {
    return this.race(sleep ? sleep(ms) : new Promise<void>((r) => setTimeout(r, ms)));
  }

  /**
   * One attempt with its own deadline: the response, its body read in full
   * (so a stalled body counts against the deadline too), or a
   * JomaTimeoutError. The attempt's fetch is aborted on timeout or abort.
   */
  async attemptWithin(
    timeoutMs: number,
    send: (signal: AbortSignal) => Promise<Response>,
  ): Promise<Response> {
    const controller = new AbortController();
    this.attempt = controller;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new JomaTimeoutError(`No complete answer within ${timeoutMs} ms`);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      return await Promise.race([
        (async () => {
          const response = await send(controller.signal);
          const body = await response.arrayBuffer();
          return new Response(
            body.byteLength || ![204, 205, 304].includes(response.status) ? body : null,
            {
              status: response.status,
              statusText: response.statusText,
              headers: response.headers,
            },
          );
        })(),
        timedOut,
        this.aborted,
      ]);
    } finally {
      clearTimeout(timer);
      this.attempt = null;
    }
  }

  /** Stops listening to the caller's signal (the call is over). */
  done(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}

/**
 * A fetch for one call that retries what is safe to repeat (a GET, PUT or
 * DELETE, or a create carrying an Idempotency-Key, which the client adds)
 * on 429, 502, 503, 504, a network error or an attempt's timeout, waiting
 * what `Retry-After` says (either form, up to `maxRetryAfterMs`; beyond it
 * the answer is returned at once) or an exponential backoff with jitter.
 * An abort by the caller is never retried.
 */
export function retryingFetch(
  base: typeof fetch,
  options: RetryOptions = {},
  guard: CallGuard = new CallGuard(),
  timeoutMs = 60_000,
): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 3;
  const baseDelay = options.baseDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 8_000;
  const maxRetryAfter = options.maxRetryAfterMs ?? 60_000;
  // Equal jitter: half the backoff fixed, half random, so retries of many clients spread out.
  const backoff = (attempt: number) => {
    const ceiling = Math.min(maxDelay, baseDelay * 2 ** attempt);
    return ceiling / 2 + (Math.random() * ceiling) / 2;
  };
  return async (request: Request) => {
    const safe = isRetrySafe(request);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await guard.attemptWithin(timeoutMs, (signal) =>
          base(new Request(request.clone(), { signal })),
        );
      } catch (err) {
        if (guard.isAborted || attempt >= retries || !safe) throw err;
        await guard.sleep(backoff(attempt), options.sleep);
        continue;
      }
      if (!safe || !RETRIED_STATUSES.has(response.status) || attempt >= retries) return response;
      const after = retryAfterMs(response.headers.get('retry-after'));
      if (after !== null && after > maxRetryAfter) return response;
      await guard.sleep(after ?? backoff(attempt), options.sleep);
    }
  };
}
