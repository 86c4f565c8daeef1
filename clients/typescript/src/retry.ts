/** How the client retries (see `retryingFetch`). */
export interface RetryOptions {
  /** Extra attempts after the first (default 3). */
  retries?: number;
  /** Backoff base when the answer names no Retry-After (default 250 ms, doubled per attempt). */
  baseDelayMs?: number;
  /** Longest single wait, Retry-After included (default 30 s). */
  maxDelayMs?: number;
  /** For tests: how to wait. */
  sleep?: (ms: number) => Promise<void>;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Whether sending this request twice is harmless: a safe method, or a key the server dedupes by. */
export function isRetrySafe(request: Request): boolean {
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has('idempotency-key');
}

/**
 * A fetch that retries: 429 always (the server refused before doing
 * anything), 503 and network errors only when the request is retry-safe
 * (a GET, or a create carrying an Idempotency-Key, which the client adds).
 * Waits what `Retry-After` says, else an exponential backoff with jitter.
 */
export function retryingFetch(base: typeof fetch, options: RetryOptions = {}): typeof fetch {
  const retries = options.retries ?? 3;
  const baseDelay = options.baseDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 30_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const backoff = (attempt: number) =>
    Math.min(maxDelay, baseDelay * 2 ** attempt * (0.5 + Math.random() / 2));
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await base(request.clone());
      } catch (err) {
        if (attempt >= retries || !isRetrySafe(request)) throw err;
        await sleep(backoff(attempt));
        continue;
      }
      const retryable =
        response.status === 429 || (response.status === 503 && isRetrySafe(request));
      if (!retryable || attempt >= retries) return response;
      const after = Number(response.headers.get('retry-after'));
      await response.body?.cancel();
      await sleep(
        Number.isFinite(after) && after > 0 ? Math.min(maxDelay, after * 1000) : backoff(attempt),
      );
    }
  }) as typeof fetch;
}
