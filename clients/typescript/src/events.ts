import type { components } from './generated/schema.js';

/**
 * Any webhook event Joma delivers: a union of the 23 event types told apart
 * by `type`, each with its own `data` (generated from the document's
 * `WebhookEvent`, whose source the service checks every event against).
 *
 *   if (event.type === 'invoice.paid') event.data.amount_paid_minor; // number
 */
export type WebhookEvent = components['schemas']['WebhookEvent'];

/** `invoice.paid`, `payment.succeeded`, ... */
export type WebhookEventType = WebhookEvent['type'];

/** The event of one type: `EventOf<'refund.succeeded'>`. */
export type EventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;
