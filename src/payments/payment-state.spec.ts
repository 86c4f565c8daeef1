import fc from 'fast-check';

import {
  isFinal,
  PAYMENT_STATUSES,
  PAYMENT_TRIGGERS,
  PaymentStatus,
  PaymentTrigger,
  Transition,
  transition,
} from './payment-state';

type Kind = Transition['kind'];

/**
 * The model, written out by hand from the payment rules (a verified capture
 * always ends as SUCCEEDED; nothing else leaves FAILED, CANCELLED or
 * EXPIRED), independently of the implementation's
 * ALLOWED/TARGET tables: for each state, what each trigger does.
 * `S` = apply to SUCCEEDED, etc.; `noop` = nothing changes, nothing emitted.
 */
const MODEL: Record<PaymentStatus, Record<PaymentTrigger, PaymentStatus | 'noop' | 'invalid'>> = {
  PENDING: { capture: 'SUCCEEDED', fail: 'FAILED', cancel: 'CANCELLED', expire: 'EXPIRED' },
  // late settlement revives; a gateway "failed" for an expired checkout is stale news
  EXPIRED: { capture: 'SUCCEEDED', fail: 'noop', cancel: 'invalid', expire: 'noop' },
  // succeeded outranks expired, whatever the order; repeated confirmations are no-ops
  SUCCEEDED: { capture: 'noop', fail: 'invalid', cancel: 'invalid', expire: 'noop' },
  // a capture is the truth about money: it revives a failed or cancelled payment too
  FAILED: { capture: 'SUCCEEDED', fail: 'noop', cancel: 'invalid', expire: 'invalid' },
  CANCELLED: { capture: 'SUCCEEDED', fail: 'invalid', cancel: 'noop', expire: 'invalid' },
};

const EVENT_OF: Record<PaymentStatus, string | null> = {
  PENDING: null,
  SUCCEEDED: 'payment.succeeded',
  FAILED: 'payment.failed',
  CANCELLED: 'payment.cancelled',
  EXPIRED: 'payment.expired',
};

const FINAL: PaymentStatus[] = ['SUCCEEDED'];
/** No money moved; only a verified capture leaves these. */
const NO_MONEY: PaymentStatus[] = ['FAILED', 'CANCELLED', 'EXPIRED'];

const status = fc.constantFrom(...PAYMENT_STATUSES);
const triggers = fc.array(fc.constantFrom(...PAYMENT_TRIGGERS), { minLength: 1, maxLength: 30 });

/** Runs a sequence, recording every step. */
function run(start: PaymentStatus, seq: PaymentTrigger[]) {
  const steps: {
    from: PaymentStatus;
    trigger: PaymentTrigger;
    t: Transition;
    to: PaymentStatus;
  }[] = [];
  let s = start;
  for (const trigger of seq) {
    const t = transition(s, trigger);
    const to = t.kind === 'apply' ? t.to : s;
    steps.push({ from: s, trigger, t, to });
    s = to;
  }
  return { steps, final: s };
}

describe('payment transition: exhaustive table', () => {
  const pairs = PAYMENT_STATUSES.flatMap((from) =>
    PAYMENT_TRIGGERS.map((trigger) => [from, trigger] as const),
  );

  it('covers all 5 x 4 pairs', () => {
    expect(pairs).toHaveLength(20);
  });

  it.each(pairs)('%s + %s matches the model', (from, trigger) => {
    const expected = MODEL[from][trigger];
    const t = transition(from, trigger);
    const kind: Kind = expected === 'noop' || expected === 'invalid' ? expected : 'apply';
    expect(t.kind).toBe(kind);
    if (t.kind === 'apply') {
      expect(t.to).toBe(expected);
      expect(t.event).toBe(EVENT_OF[t.to]);
    }
    if (t.kind === 'invalid') expect(t.reason).toMatch(/cannot be/);
  });

  it('isFinal is exactly SUCCEEDED', () => {
    expect(PAYMENT_STATUSES.filter(isFinal).sort()).toEqual([...FINAL].sort());
  });
});

describe('payment transition: properties over random trigger sequences', () => {
  it('agrees with the model at every step', () => {
    fc.assert(
      fc.property(status, triggers, (start, seq) => {
        let model: PaymentStatus = start;
        for (const step of run(start, seq).steps) {
          const expected = MODEL[model][step.trigger];
          expect(step.t.kind).toBe(
            expected === 'noop' || expected === 'invalid' ? expected : 'apply',
          );
          if (expected !== 'noop' && expected !== 'invalid') model = expected;
          expect(step.to).toBe(model);
        }
      }),
    );
  });

  it('final states never change', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FINAL), triggers, (start, seq) => {
        const { steps, final } = run(start, seq);
        expect(final).toBe(start);
        for (const s of steps) expect(s.t.kind).not.toBe('apply');
      }),
    );
  });

  it('SUCCEEDED is reached at most once per sequence and never left', () => {
    fc.assert(
      fc.property(status, triggers, (start, seq) => {
        const { steps } = run(start, seq);
        const intoSucceeded = steps.filter((s) => s.t.kind === 'apply' && s.to === 'SUCCEEDED');
        expect(intoSucceeded.length).toBeLessThanOrEqual(1);
        const first = steps.findIndex((s) => s.to === 'SUCCEEDED');
        if (first >= 0) for (const s of steps.slice(first)) expect(s.to).toBe('SUCCEEDED');
        if (start === 'SUCCEEDED') expect(intoSucceeded).toHaveLength(0);
      }),
    );
  });

  it('FAILED, CANCELLED and EXPIRED only go to SUCCEEDED, and only by a capture', () => {
    fc.assert(
      fc.property(status, triggers, (start, seq) => {
        for (const s of run(start, seq).steps) {
          if (NO_MONEY.includes(s.from) && s.t.kind === 'apply') {
            expect(s.t.to).toBe('SUCCEEDED');
            expect(s.trigger).toBe('capture');
          }
        }
      }),
    );
  });

  it('every capture ends as SUCCEEDED, from any state', () => {
    fc.assert(
      fc.property(status, triggers, (start, seq) => {
        for (const s of run(start, seq).steps)
          if (s.trigger === 'capture') expect(s.to).toBe('SUCCEEDED');
      }),
    );
  });

  it('every apply changes the state and names the event of its target', () => {
    fc.assert(
      fc.property(status, triggers, (start, seq) => {
        for (const s of run(start, seq).steps) {
          if (s.t.kind !== 'apply') continue;
          expect(s.t.to).not.toBe(s.from);
          expect(s.t.event).toBe(EVENT_OF[s.t.to]);
          expect(s.t.event).toBe(`payment.${s.t.to.toLowerCase()}`);
        }
      }),
    );
  });

  it('a trigger repeated right after it applied is a no-op', () => {
    fc.assert(
      fc.property(status, triggers, (start, seq) => {
        for (const s of run(start, seq).steps) {
          if (s.t.kind === 'apply') expect(transition(s.to, s.trigger).kind).toBe('noop');
        }
      }),
    );
  });

  it('no sequence ever leads back to PENDING', () => {
    fc.assert(
      fc.property(status, triggers, (start, seq) => {
        const { steps } = run(start, seq);
        for (const s of steps) if (s.t.kind === 'apply') expect(s.t.to).not.toBe('PENDING');
      }),
    );
  });
});
