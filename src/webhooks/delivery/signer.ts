import { createHmac } from 'node:crypto';

/**
 * Webhook signatures (v1: HMAC-SHA256 of the body; v2: of `<unix>.` + body; docs/webhooks.md), pure functions.
 * The key is the endpoint secret exactly as shown to the app (`whsec_...`),
 * as UTF-8 bytes.
 */

/** v1: lowercase-hex HMAC-SHA256 of the raw body. */
export function signV1(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** v2: `t=<unix>,v1=<hex>` where hex is the HMAC of "<unix>." followed by the raw body. */
export function signV2(secret: string, body: Buffer, unixSeconds: number): string {
  const hex = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${hex}`;
}

export interface DeliveryHeaderInput {
  secret: string;
  body: Buffer;
  deliveryId: number;
  eventType: string;
  /** Unix seconds at which this attempt is signed. */
  unixSeconds: number;
}

/** The five delivery headers, computed afresh for each attempt. */
export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  return {
    'X-Webhook-Signature': signV1(input.secret, input.body),
    'X-Webhook-Id': String(input.deliveryId),
    'X-Webhook-Event': input.eventType,
    'X-Webhook-Timestamp': String(input.unixSeconds),
    'X-Webhook-Signature-V2': signV2(input.secret, input.body, input.unixSeconds),
  };
}
