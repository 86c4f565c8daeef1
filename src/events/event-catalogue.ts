/**
 * The closed catalogue of 23 event types: nothing outside it is ever
 * recorded or delivered. `webhook_endpoint.test` goes only to the endpoint
 * it names (POST /webhook-endpoints/{id}/test), whatever the subscriptions.
 */
export const EVENT_TYPES = [
  'payment.succeeded',
  'payment.failed',
  'payment.cancelled',
  'payment.expired',
  'refund.pending',
  'refund.succeeded',
  'refund.failed',
  'invoice.issued',
  'invoice.partially_paid',
  'invoice.paid',
  'invoice.voided',
  'subscription.created',
  'subscription.activated',
  'subscription.trial_will_end',
  'subscription.renewed',
  'subscription.payment_succeeded',
  'subscription.payment_failed',
  'subscription.past_due',
  'subscription.canceled',
  'subscription.paused',
  'subscription.resumed',
  'subscription.entitlements_updated',
  'webhook_endpoint.test',
] as const;

/** The event a "send test event" records: delivered to its `endpoint_id` alone. */
export const TEST_EVENT = 'webhook_endpoint.test';

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** `data.status` of a type: the part after the first dot (none for entitlements). */
export function statusOfType(type: EventType): string | undefined {
  if (type === 'subscription.entitlements_updated' || type === TEST_EVENT) return undefined;
  return type.slice(type.indexOf('.') + 1);
}

export const SCHEMA_VERSION = 1;
