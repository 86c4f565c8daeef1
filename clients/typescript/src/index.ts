/** @joma/client: a typed client for the Joma API, and a webhook consumer kit. */
export {
  type ClientOptions,
  createJomaAdminClient,
  createJomaClient,
  createJomaPublicClient,
  type JomaClient,
} from './client';
export { type ErrorCode, type ErrorEnvelope, JomaApiError, unwrap } from './errors';
export type { components, paths } from './generated/schema';
export { type ListPage, paginate, unwrapPage } from './paginate';
export { isRetrySafe, retryingFetch, type RetryOptions } from './retry';
export {
  type VerifiedWebhook,
  type VerifyOptions,
  verifyWebhook,
  WebhookDeduper,
  WebhookVerificationError,
} from './webhooks';
