import fc from 'fast-check';

import { LedgerAccount, LedgerKind, postingsFor } from './ledger-postings';

type Op =
  | { kind: 'capture'; amount: number }
  | { kind: 'refund'; amount: number; outcome: 'succeeded' | 'failed' | 'pending' }
  | { kind: 'settle'; amount: number; fee: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('capture' as const),
    amount: fc.integer({ min: 1, max: 10_000_000 }),
  }),
  fc.record({
    kind: fc.constant('refund' as const),
    amount: fc.integer({ min: 1, max: 10_000_000 }),
    outcome: fc.constantFrom('succeeded' as const, 'failed' as const, 'pending' as const),
  }),
  fc.integer({ min: 1, max: 10_000_000 }).chain((amount) =>
    fc.record({
      kind: fc.constant('settle' as const),
      amount: fc.constant(amount),
      fee: fc.integer({ min: 0, max: amount }),
    }),
  ),
);

describe('ledger postings (property)', () => {
  it('any sequence of captures, refunds and settlements stays balanced, and clearing = captured - refunded - settled', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const balance = new Map<LedgerAccount, number>();
        const post = (kind: LedgerKind, amount: number, fee = 0) => {
          const postings = postingsFor(kind, amount, fee);
          const d = postings.reduce((s, p) => s + p.debitMinor, 0);
          const c = postings.reduce((s, p) => s + p.creditMinor, 0);
          expect(d).toBe(c);
          for (const p of postings) {
            expect((p.debitMinor === 0) !== (p.creditMinor === 0)).toBe(true);
            balance.set(p.account, (balance.get(p.account) ?? 0) + p.debitMinor - p.creditMinor);
          }
        };
        let captured = 0;
        let refunded = 0;
        let settled = 0;
        let fees = 0;
        let reserved = 0;
        for (const o of ops) {
          if (o.kind === 'capture') {
            post('capture', o.amount);
            captured += o.amount;
          } else if (o.kind === 'refund') {
            post('refund_reserved', o.amount);
            if (o.outcome === 'succeeded') {
              post('refund_succeeded', o.amount);
              refunded += o.amount;
            } else if (o.outcome === 'failed') post('refund_released', o.amount);
            else reserved += o.amount;
          } else {
            post('settlement', o.amount, o.fee);
            settled += o.amount;
            fees += o.fee;
          }
        }
        const total = [...balance.values()].reduce((s, v) => s + v, 0);
        expect(total).toBe(0);
        expect(balance.get('gateway_clearing') ?? 0).toBe(captured - refunded - settled);
        expect(balance.get('merchant_payable') ?? 0).toBe(reserved + refunded - captured + 0);
        expect(balance.get('refunds_pending') ?? 0).toBe(0 - reserved + 0);
        expect(balance.get('gateway_fees') ?? 0).toBe(fees);
        expect(balance.get('bank') ?? 0).toBe(settled - fees);
      }),
    );
  });

  it('refuses amounts that are not positive integers of minor units, and fees beyond the amount', () => {
    for (const bad of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1])
      expect(() => postingsFor('capture', bad)).toThrow();
    expect(() => postingsFor('settlement', 100, 101)).toThrow();
  });
});
