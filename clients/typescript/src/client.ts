import createClient, { type Client, type Middleware } from 'openapi-fetch';

import { IDEMPOTENT_OPERATIONS } from './generated/operations';
import type { paths } from './generated/schema';
import { retryingFetch, type RetryOptions } from './retry';

/** The typed client: `client.GET('/api/v1/invoices/{id}', { params: { path: { id } } })`. */
export type JomaClient = Client<paths>;

export interface ClientOptions {
  /** Where Joma listens, e.g. https://pay.example.com */
  baseUrl: string;
  retry?: RetryOptions;
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

function build(options: ClientOptions, headers: Record<string, string>): JomaClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retry),
  });
  client.use(idempotencyKeys(options.idempotencyKey ?? (() => globalThis.crypto.randomUUID())));
  return client;
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
