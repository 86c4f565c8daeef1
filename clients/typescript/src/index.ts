/** @joma/client: a typed client for the Joma API, and a webhook consumer kit. */
export {
  createJomaAdminClient,
  createJomaClient,
  createJomaPublicClient,
  type ClientOptions,
  type JomaClient,
} from './client';
export { JomaApiError, unwrap, type ErrorCode, type ErrorEnvelope } from './errors';
export { paginate, unwrapPage, type ListPage } from './paginate';
export { isRetrySafe, retryingFetch, type RetryOptions } from './retry';
export {
  verifyWebhook,
  WebhookDeduper,
  WebhookVerificationError,
  type VerifiedWebhook,
  type VerifyOptions,
} from './webhooks';
export type { components, paths } from './generated/schema';
