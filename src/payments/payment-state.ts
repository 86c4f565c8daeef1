/**
 * The payment state machine: one pure function used by every path (app
 * cancel, gateway confirmation, expiry sweep, test helpers).
 *
 *   PENDING -> SUCCEEDED | FAILED | CANCELLED | EXPIRED
 *   EXPIRED | FAILED | CANCELLED -> SUCCEEDED   (a verified capture only)
 *
 * The gateway's verified capture is the truth about money: a capture always
 * ends as a SUCCEEDED payment (late settlement after the deadline, a
 * customer paying a checkout the merchant cancelled), never as a log line.
 * FAILED, CANCELLED and EXPIRED mean no money moved, so nothing but a
 * capture leaves them; SUCCEEDED is final. A trigger that would move a
 * payment to the state it is already in is a no-op (repeated confirmations
 * change nothing and emit nothing); a stale expiry of a succeeded payment is
 * also a no-op; anything else is invalid.
 */
export type PaymentStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED' | 'EXPIRED';
export type PaymentTrigger = 'capture' | 'fail' | 'cancel' | 'expire';

export const PAYMENT_STATUSES: readonly PaymentStatus[] = [
  'PENDING',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
  'EXPIRED',
];
export const PAYMENT_TRIGGERS: readonly PaymentTrigger[] = ['capture', 'fail', 'cancel', 'expire'];

export type PaymentEventType =
  'payment.succeeded' | 'payment.failed' | 'payment.cancelled' | 'payment.expired';

export type Transition =
  | { kind: 'apply'; to: PaymentStatus; event: PaymentEventType }
  | { kind: 'noop' }
  | { kind: 'invalid'; reason: string };

const TARGET: Record<PaymentTrigger, { to: PaymentStatus; event: PaymentEventType }> = {
  capture: { to: 'SUCCEEDED', event: 'payment.succeeded' },
  fail: { to: 'FAILED', event: 'payment.failed' },
  cancel: { to: 'CANCELLED', event: 'payment.cancelled' },
  expire: { to: 'EXPIRED', event: 'payment.expired' },
};

/** Which triggers move a payment out of each state. */
const ALLOWED: Record<PaymentStatus, readonly PaymentTrigger[]> = {
  PENDING: ['capture', 'fail', 'cancel', 'expire'],
  EXPIRED: ['capture'],
  FAILED: ['capture'],
  CANCELLED: ['capture'],
  SUCCEEDED: [],
};

export function transition(from: PaymentStatus, trigger: PaymentTrigger): Transition {
  const target = TARGET[trigger];
  if (ALLOWED[from].includes(trigger)) return { kind: 'apply', ...target };
  if (target.to === from) return { kind: 'noop' };
  // succeeded outranks expired, whatever the order the news arrives in
  if (from === 'SUCCEEDED' && trigger === 'expire') return { kind: 'noop' };
  // an expired checkout the gateway later reports failed or cancelled stays expired
  if (from === 'EXPIRED' && (trigger === 'fail' || trigger === 'cancel')) {
    return trigger === 'fail'
      ? { kind: 'noop' }
      : { kind: 'invalid', reason: 'An expired payment cannot be cancelled' };
  }
  return {
    kind: 'invalid',
    reason: `A ${from.toLowerCase()} payment cannot be ${TARGET[trigger].to.toLowerCase()}`,
  };
}

export function isFinal(status: PaymentStatus): boolean {
  return ALLOWED[status].length === 0;
}
