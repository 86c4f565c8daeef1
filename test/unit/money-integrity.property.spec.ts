import fc from 'fast-check';

import {
  afterPayment,
  amountDue,
  canVoid,
  InvoiceStatus,
  isPayable,
} from '../../src/invoices/invoice-state';
import { PaymentStatus, transition } from '../../src/payments/payment-state';

/**
 * A model of one invoice and its payments under any interleaving of
 * create / expire / cancel / void / capture / late capture, driven through
 * the real transition functions. Invariants: the invoice never counts more
 * than its total; the SUCCEEDED payments add up to what it counts plus their
 * excess; every capture is a SUCCEEDED payment.
 */
describe('money integrity over any interleaving (fast-check)', () => {
  type Op =
    | { kind: 'create'; amount: number }
    | { kind: 'expire' | 'cancel' | 'capture'; which: number }
    | { kind: 'void' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), amount: fc.integer({ min: 1, max: 15000 }) }),
    fc.record({
      kind: fc.constantFrom('expire' as const, 'cancel' as const, 'capture' as const),
      which: fc.nat({ max: 7 }),
    }),
    fc.record({ kind: fc.constant('void' as const) }),
  );

  it('amountPaid <= total, sum(SUCCEEDED) = amountPaid + sum(excess), every capture SUCCEEDED', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20000 }),
        fc.array(op, { maxLength: 40 }),
        (total, ops) => {
          let invoice: { status: InvoiceStatus; paid: number } = { status: 'ISSUED', paid: 0 };
          const payments: {
            status: PaymentStatus;
            amount: number;
            excess: number;
            captured: boolean;
          }[] = [];
          for (const o of ops) {
            if (o.kind === 'create') {
              // The API refuses a payment beyond what is due once open ones are reserved.
              const reserved = payments
                .filter((p) => p.status === 'PENDING')
                .reduce((a, p) => a + p.amount, 0);
              if (
                isPayable(invoice.status) &&
                o.amount + reserved <= amountDue(total, invoice.paid)
              ) {
                payments.push({ status: 'PENDING', amount: o.amount, excess: 0, captured: false });
              }
              continue;
            }
            if (o.kind === 'void') {
              if (canVoid(invoice.status, invoice.paid)) {
                invoice = { ...invoice, status: 'VOID' };
                for (const p of payments) if (p.status === 'PENDING') p.status = 'CANCELLED';
              }
              continue;
            }
            const p = payments[o.which % Math.max(payments.length, 1)];
            if (!p) continue;
            const t = transition(p.status, o.kind);
            if (t.kind !== 'apply') continue;
            p.status = t.to;
            if (t.to === 'SUCCEEDED') {
              p.captured = true;
              const next = afterPayment(invoice.status, total, invoice.paid, p.amount);
              invoice = { status: next.status, paid: next.paidMinor };
              p.excess = next.excessMinor;
              expect(next.countedMinor + next.excessMinor).toBe(p.amount);
            }
          }
          expect(invoice.paid).toBeGreaterThanOrEqual(0);
          expect(invoice.paid).toBeLessThanOrEqual(total);
          if (invoice.status === 'VOID') expect(invoice.paid).toBe(0);
          const succeeded = payments.filter((p) => p.status === 'SUCCEEDED');
          const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
          expect(sum(succeeded.map((p) => p.amount))).toBe(
            invoice.paid + sum(succeeded.map((p) => p.excess)),
          );
          for (const p of payments) if (p.captured) expect(p.status).toBe('SUCCEEDED');
        },
      ),
      { numRuns: 500 },
    );
  });
});
