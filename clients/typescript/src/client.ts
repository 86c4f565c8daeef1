import createClient, {
  type Client,
  type FetchOptions,
  type FetchResponse,
  type Middleware,
} from 'openapi-fetch';
import type {
  FilterKeys,
  HttpMethod,
  PathsWithMethod,
  RequiredKeysOf,
} from 'openapi-typescript-helpers';

import { IDEMPOTENT_OPERATIONS } from './generated/operations.js';
import type { paths } from './generated/schema.js';
import { CallGuard, retryingFetch, type RetryOptions } from './retry.js';

/** Headers a call may add besides its documented parameters (checked: a misspelled one does not compile). */
export interface CallHeaders {
  /** Your own key for a create (the client makes one when you give none). */
  'Idempotency-Key'?: string;
  /** Your request id, echoed in the answer and the service's log line. */
  'X-Request-Id'?: string;
}

/**
 * A call's options, exactly: `params` and `body` as the document types
 * them, `headers` from CallHeaders, and `signal` (abort it, or
 * `AbortSignal.timeout(ms)`, to bound the whole call). Unknown members do
 * not compile.
 */
export type CallInit<Op> = Omit<
  FetchOptions<Op>,
  | 'headers'
  | 'fetch'
  | 'baseUrl'
  | 'middleware'
  | 'parseAs'
  | 'querySerializer'
  | 'bodySerializer'
  | 'pathSerializer'
> & { headers?: CallHeaders };

type OperationOf<P extends keyof paths, M extends HttpMethod> = FilterKeys<paths[P], M>;
type InitArgs<Op> =
  RequiredKeysOf<CallInit<Op>> extends never ? [init?: CallInit<Op>] : [init: CallInit<Op>];

/** One HTTP method of the client: `joma.GET('/api/v1/invoices/{id}', { params: { path: { id } } })`. */
export type CallMethod<M extends HttpMethod> = <P extends PathsWithMethod<paths, M>>(
  path: P,
  ...init: InitArgs<OperationOf<P, M>>
) => Promise<
  FetchResponse<paths[P][M] & Record<string | number, unknown>, object, 'application/json'>
>;

/** Options a call can take from its client (`client.withOptions({ timeoutMs: 5_000 })`). */
export interface CallOptions {
  /** Deadline of each attempt, its body included (default 60 s); a timed-out attempt is retried when safe. */
  timeoutMs?: number;
  retry?: RetryOptions;
}

/** The typed client. */
export interface JomaClient {
  GET: CallMethod<'get'>;
  POST: CallMethod<'post'>;
  PUT: CallMethod<'put'>;
  PATCH: CallMethod<'patch'>;
  DELETE: CallMethod<'delete'>;
  /** The same client with other call options, e.g. a shorter timeout for one call. */
  withOptions(options: CallOptions): JomaClient;
  /** openapi-fetch middleware (logging, tracing). */
  use(...middleware: Middleware[]): void;
}

export interface ClientOptions extends CallOptions {
  /** Where Joma listens, e.g. https://pay.example.com */
  baseUrl: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
  /** Makes the Idempotency-Key of a create that was given none (default: a random UUID). */
  idempotencyKey?: () => string;
}

/**
 * Every create that takes an Idempotency-Key gets one unless the caller set
 * it, once per call: retries of that call reuse it, so a retried create
 * never creates twice.
 */
function idempotencyKeys(make: () => string): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      if (request.headers.has('idempotency-key')) return undefined;
      if (!IDEMPOTENT_OPERATIONS.has(`${request.method} ${schemaPath}`)) return undefined;
      request.headers.set('Idempotency-Key', make());
      return request;
    },
  };
}

/**
 * Each call gets its own CallGuard: the caller's signal is kept away from
 * openapi-fetch's Request (whose derived signal a GC can cut loose) and
 * raced against the whole call, body parsing included.
 */
function withCalls(base: Client<paths>, fetchImpl: typeof fetch, options: CallOptions): JomaClient {
  const method = (name: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') =>
    (async (path: string, init?: { signal?: AbortSignal | null }) => {
      const { signal, ...rest } = init ?? {};
      const guard = new CallGuard(signal);
      try {
        const call = base[name] as unknown as (p: string, i: object) => Promise<unknown>;
        return await guard.race(
          call(path, {
            ...rest,
            fetch: retryingFetch(fetchImpl, options.retry, guard, options.timeoutMs ?? 60_000),
          }),
        );
      } finally {
        guard.done();
      }
    }) as never;
  return {
    GET: method('GET'),
    POST: method('POST'),
    PUT: method('PUT'),
    PATCH: method('PATCH'),
    DELETE: method('DELETE'),
    withOptions: (more) =>
      withCalls(base, fetchImpl, {
        ...options,
        ...more,
        retry: { ...options.retry, ...more.retry },
      }),
    use: (...middleware) => base.use(...middleware),
  };
}

function build(options: ClientOptions, headers: Record<string, string>): JomaClient {
  const base = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers });
  base.use(idempotencyKeys(options.idempotencyKey ?? (() => globalThis.crypto.randomUUID())));
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return withCalls(base, fetchImpl, { timeoutMs: options.timeoutMs, retry: options.retry });
}

/** An app's client: X-Api-Key + X-Api-Secret; the key's mode (TEST or LIVE) selects the data. */
export function createJomaClient(
  options: ClientOptions & { apiKey: string; apiSecret: string },
): JomaClient {
  return build(options, { 'X-Api-Key': options.apiKey, 'X-Api-Secret': options.apiSecret });
}

/**
 * An admin's client: a bearer token from POST /api/v1/auth/login. With
 * `actingOn`, the app routes act on that app and mode (X-App-Id and X-Mode,
 * decisions section 15), within the admin's permissions and apps.
 */
export function createJomaAdminClient(
  options: ClientOptions & { token: string; actingOn?: { appId: number; mode: 'TEST' | 'LIVE' } },
): JomaClient {
  const headers: Record<string, string> = { Authorization: `Bearer ${options.token}` };
  if (options.actingOn) {
    headers['X-App-Id'] = String(options.actingOn.appId);
    headers['X-Mode'] = options.actingOn.mode;
  }
  return build(options, headers);
}

/** A client with no credentials (login, health). */
export function createJomaPublicClient(options: ClientOptions): JomaClient {
  return build(options, {});
}
