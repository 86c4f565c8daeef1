/**
 * @joma/client without the webhook kit (which needs node:crypto): what a
 * browser or an edge runtime imports (the package's `browser` condition).
 */
export {
  type CallHeaders,
  type CallInit,
  type CallMethod,
  type CallOptions,
  type ClientOptions,
  createJomaAdminClient,
  createJomaClient,
  createJomaPublicClient,
  type JomaClient,
} from './client.js';
export { type ErrorCode, type ErrorEnvelope, JomaApiError, unwrap } from './errors.js';
export type { EventOf, WebhookEvent, WebhookEventType } from './events.js';
export type { components, paths } from './generated/schema.js';
export { type ListPage, paginate, unwrapPage } from './paginate.js';
export {
  CallGuard,
  isRetrySafe,
  JomaTimeoutError,
  retryAfterMs,
  retryingFetch,
  type RetryOptions,
} from './retry.js';
