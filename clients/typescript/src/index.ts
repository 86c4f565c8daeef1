/** @joma/client: a typed client for the Joma API, and a webhook consumer kit (Node). */
export * from './browser.js';
export {
  type VerifiedWebhook,
  type VerifyOptions,
  verifyWebhook,
  WebhookDeduper,
  WebhookVerificationError,
} from './webhooks.js';
