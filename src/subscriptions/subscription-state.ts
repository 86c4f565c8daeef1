/**
 * The subscription state machine: one pure table used by every path (the
 * API, invoice settlement, the scheduler and the test helper's advance).
 */
export const SUBSCRIPTION_STATUSES = [
  'INCOMPLETE',
  'TRIALING',
  'ACTIVE',
  'PAST_DUE',
  'PAUSED',
  'CANCELED',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export type SubscriptionTrigger =
  /** An invoice of the subscription was paid in full. */
  | 'invoice_paid'
  /** The trial ended with the first invoice paid / unpaid. */
  | 'trial_end_paid'
  | 'trial_end_unpaid'
  /** A renewal invoice went past its due date unpaid. */
  | 'invoice_overdue'
  /** A period ended and the next began (renewal invoice issued). */
  | 'renew'
  /** 14 days past due (or INCOMPLETE 14 days after its first invoice's due date). */
  | 'dunning_exhausted'
  /** The period ended with cancelAtPeriodEnd set. */
  | 'period_end_cancel'
  | 'pause'
  | 'resume_trialing'
  | 'resume_past_due'
  | 'resume_active'
  | 'cancel_now'
  | 'cancel_at_period_end';

export type SubscriptionEventType =
  | 'subscription.activated'
  | 'subscription.past_due'
  | 'subscription.paused'
  | 'subscription.resumed'
  | 'subscription.canceled';

export interface SubscriptionStep {
  next: SubscriptionStatus;
  /** The status event this step emits (null: the status does not change). */
  event: SubscriptionEventType | null;
}

type Row = Partial<Record<SubscriptionTrigger, SubscriptionStatus>>;

const LIVE_CANCELS: Row = { cancel_now: 'CANCELED' };

/** Allowed steps; a pair not listed is illegal (409 INVALID_STATE on the API). */
const TABLE: Record<SubscriptionStatus, Row> = {
  INCOMPLETE: {
    invoice_paid: 'ACTIVE',
    dunning_exhausted: 'CANCELED',
    ...LIVE_CANCELS,
  },
  TRIALING: {
    invoice_paid: 'TRIALING',
    trial_end_paid: 'ACTIVE',
    trial_end_unpaid: 'PAST_DUE',
    period_end_cancel: 'CANCELED',
    pause: 'PAUSED',
    cancel_at_period_end: 'TRIALING',
    ...LIVE_CANCELS,
  },
  ACTIVE: {
    invoice_paid: 'ACTIVE',
    invoice_overdue: 'PAST_DUE',
    renew: 'ACTIVE',
    period_end_cancel: 'CANCELED',
    pause: 'PAUSED',
    cancel_at_period_end: 'ACTIVE',
    ...LIVE_CANCELS,
  },
  PAST_DUE: {
    invoice_paid: 'ACTIVE',
    dunning_exhausted: 'CANCELED',
    period_end_cancel: 'CANCELED',
    pause: 'PAUSED',
    cancel_at_period_end: 'PAST_DUE',
    ...LIVE_CANCELS,
  },
  PAUSED: {
    invoice_paid: 'PAUSED',
    resume_trialing: 'TRIALING',
    resume_past_due: 'PAST_DUE',
    resume_active: 'ACTIVE',
    ...LIVE_CANCELS,
  },
  CANCELED: {
    // A late capture of an already-open invoice is counted; nothing else moves.
    invoice_paid: 'CANCELED',
  },
};

const STATUS_EVENT: Partial<Record<SubscriptionStatus, SubscriptionEventType>> = {
  ACTIVE: 'subscription.activated',
  PAST_DUE: 'subscription.past_due',
  PAUSED: 'subscription.paused',
  CANCELED: 'subscription.canceled',
};

/** The step `trigger` takes from `status`, or null when it is not allowed. */
export function subscriptionStep(
  status: SubscriptionStatus,
  trigger: SubscriptionTrigger,
): SubscriptionStep | null {
  const next = TABLE[status][trigger];
  if (next === undefined) return null;
  if (trigger.startsWith('resume_')) return { next, event: 'subscription.resumed' };
  return { next, event: next === status ? null : (STATUS_EVENT[next] ?? null) };
}

/** Whether a customer holds the product's benefits in this status. */
export function grantsBenefits(status: SubscriptionStatus): boolean {
  return status === 'TRIALING' || status === 'ACTIVE';
}

/**
 * The `nextBillingDate` a subscription shows (decisions section 6): while
 * TRIALING, before any period has begun, it is the trial end, when the
 * first invoice falls due; otherwise the stored date (null while INCOMPLETE).
 */
export function shownNextBillingDate(sub: {
  status: SubscriptionStatus;
  nextBillingDate: string | null;
  trialEndDate: string | null;
}): string | null {
  return sub.status === 'TRIALING' && sub.nextBillingDate === null
    ? sub.trialEndDate
    : sub.nextBillingDate;
}
