import fc from 'fast-check';

import {
  grantsBenefits,
  SUBSCRIPTION_STATUSES,
  SubscriptionStatus,
  subscriptionStep,
  SubscriptionTrigger,
} from './subscription-state';

const TRIGGERS: SubscriptionTrigger[] = [
  'invoice_paid',
  'trial_end_paid',
  'trial_end_unpaid',
  'invoice_overdue',
  'renew',
  'dunning_exhausted',
  'period_end_cancel',
  'pause',
  'resume_trialing',
  'resume_past_due',
  'resume_active',
  'cancel_now',
  'cancel_at_period_end',
];

/** A second, independent statement of the lifecycle rules (decisions: subscriptions). */
function model(s: SubscriptionStatus, t: SubscriptionTrigger): SubscriptionStatus | null {
  if (s === 'CANCELED') return t === 'invoice_paid' ? s : null;
  switch (t) {
    case 'cancel_now':
      return 'CANCELED';
    case 'cancel_at_period_end':
      return ['TRIALING', 'ACTIVE', 'PAST_DUE'].includes(s) ? s : null;
    case 'invoice_paid':
      if (s === 'INCOMPLETE' || s === 'PAST_DUE') return 'ACTIVE';
      return s;
    case 'pause':
      return ['TRIALING', 'ACTIVE', 'PAST_DUE'].includes(s) ? 'PAUSED' : null;
    case 'resume_trialing':
      return s === 'PAUSED' ? 'TRIALING' : null;
    case 'resume_past_due':
      return s === 'PAUSED' ? 'PAST_DUE' : null;
    case 'resume_active':
      return s === 'PAUSED' ? 'ACTIVE' : null;
    case 'trial_end_paid':
      return s === 'TRIALING' ? 'ACTIVE' : null;
    case 'trial_end_unpaid':
      return s === 'TRIALING' ? 'PAST_DUE' : null;
    case 'invoice_overdue':
      return s === 'ACTIVE' ? 'PAST_DUE' : null;
    case 'renew':
      return s === 'ACTIVE' ? 'ACTIVE' : null;
    case 'dunning_exhausted':
      return s === 'PAST_DUE' || s === 'INCOMPLETE' ? 'CANCELED' : null;
    case 'period_end_cancel':
      return ['TRIALING', 'ACTIVE', 'PAST_DUE'].includes(s) ? 'CANCELED' : null;
  }
}

describe('subscription state table', () => {
  it('agrees with the model on every random walk, and emits an event for every status change', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SUBSCRIPTION_STATUSES),
        fc.array(fc.constantFrom(...TRIGGERS), { maxLength: 40 }),
        (start, triggers) => {
          let s: SubscriptionStatus = start;
          for (const t of triggers) {
            const step = subscriptionStep(s, t);
            const expected = model(s, t);
            expect(step?.next ?? null).toBe(expected);
            if (!step) continue;
            if (step.next !== s) expect(step.event).not.toBeNull();
            if (t.startsWith('resume_')) expect(step.event).toBe('subscription.resumed');
            s = step.next;
          }
        },
      ),
    );
  });

  it('CANCELED is terminal', () => {
    for (const t of TRIGGERS) {
      const step = subscriptionStep('CANCELED', t);
      if (step) expect(step.next).toBe('CANCELED');
    }
  });

  it('benefits are held only while TRIALING or ACTIVE', () => {
    expect(SUBSCRIPTION_STATUSES.filter(grantsBenefits)).toEqual(['TRIALING', 'ACTIVE']);
  });
});
