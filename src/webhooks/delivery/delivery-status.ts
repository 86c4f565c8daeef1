/** Delivery statuses: PENDING until delivered (SUCCEEDED), retried while FAILED, parked when retries run out. */
export const DELIVERY_STATUSES = [
  'PENDING',
  'RETRYING',
  'DELIVERED',
  'PARKED',
  'UNDELIVERABLE',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * lastError markers the service writes itself. Transport failures are
 * written as `CODE: detail` (e.g. `HTTP_500`, `TIMEOUT: ...`, `ECONNREFUSED: ...`).
 */
export const DeliveryError = {
  NO_ENDPOINT_CONFIGURED: 'NO_ENDPOINT_CONFIGURED',
  LIVE_REQUIRES_HTTPS: 'LIVE_REQUIRES_HTTPS',
  URL_SCHEME_NOT_ALLOWED: 'URL_SCHEME_NOT_ALLOWED',
  URL_INVALID: 'URL_INVALID',
  ENDPOINT_DISABLED: 'ENDPOINT_DISABLED',
  ENDPOINT_DELETED: 'ENDPOINT_DELETED',
} as const;
