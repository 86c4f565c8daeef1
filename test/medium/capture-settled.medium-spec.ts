import { InvoicePaymentsService } from '../../src/billing';
import { DomainEvent, DomainEventBus, HandlerOrder } from '../../src/common/domain-events';
import { InvoicesService } from '../../src/invoices';
import {
  CaptureSettled,
  PaymentRevived,
  PaymentSimulationService,
  PaymentsService,
  PaymentSucceeded,
} from '../../src/payments';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { expectBalancedLedger } from '../support/ledger';
import { createTestContext, insertApp, TestContext } from '../support/test-context';

/**
 * The capture as an explicit fact (issue 57): a PaymentSucceeded is never
 * changed once published; the invoice side counts it and publishes exactly
 * one CaptureSettled { payment, countedMinor, excessMinor, mismatch }, from
 * which the payment's excess, the excess refund, the receipt and the
 * payment.succeeded event follow.
 */
describe('capture settled (medium tier: services on a real database)', () => {
  let c: TestContext;
  let scope: { appId: number; mode: 'TEST' };
  let billing: InvoicePaymentsService;
  let payments: PaymentsService;
  let invoices: InvoicesService;
  let published: DomainEvent[];
  let settle: (id: number) => Promise<unknown>;
  let expireNow: (id: number) => Promise<unknown>;

  beforeAll(async () => {
    c = await createTestContext();
    scope = { appId: await insertApp(c.db, 'Capture settled'), mode: 'TEST' };
    billing = c.app.get(InvoicePaymentsService);
    payments = c.app.get(PaymentsService);
    invoices = c.app.get(InvoicesService);
    const helpers = c.app.get(TestHelpersService);
    settle = (id) => helpers.settlePayment(scope, id, 'succeeded');
    const simulation = c.app.get(PaymentSimulationService);
    expireNow = (id) => simulation.expireNow(scope, id);
    // Every fact published, nested ones too (a subscriber's publish is queued through the same call).
    const bus = c.app.get(DomainEventBus);
    const publish = bus.publish.bind(bus);
    jest.spyOn(bus, 'publish').mockImplementation((fact: DomainEvent) => {
      published.push(fact);
      return publish(fact);
    });
  });
  beforeEach(() => {
    published = [];
  });
  afterEach(() => expectBalancedLedger(c.db));
  afterAll(() => c.close());

  const invoiceOf = async (ref: string, totalMinor: number) =>
    (
      await invoices.create(scope, {
        customerReference: ref,
        customerEmail: `${ref}@example.com`,
        customerLanguage: 'en',
        currency: 'BDT',
        lineItems: [{ description: 'Tea', qty: 1, unitAmountMinor: totalMinor }],
      })
    ).invoice;
  const payOn = (invoiceId: number, amountMinor: number) =>
    billing.createPayment(scope, { amountMinor, invoiceId });

  /** The facts one payment's capture published, in order, with its one settlement. */
  const captureOf = (paymentId: number) => {
    const mine = published.filter(
      (f) =>
        (f instanceof PaymentSucceeded || f instanceof CaptureSettled) &&
        f.payment.id === paymentId,
    );
    const captures = mine.filter((f): f is PaymentSucceeded => f instanceof PaymentSucceeded);
    const settled = mine.filter((f): f is CaptureSettled => f instanceof CaptureSettled);
    expect(captures).toHaveLength(1);
    expect(settled).toHaveLength(1);
    // The capture first, its settlement after (queued behind it), settling that very capture.
    expect(mine).toEqual([captures[0], settled[0]]);
    expect(settled[0].capture).toBe(captures[0]);
    return { capture: captures[0], settled: settled[0] };
  };
  const succeededEvent = async (paymentId: number) => {
    const { rows } = await c.db.query(
      `SELECT data FROM events WHERE type = 'payment.succeeded' AND (data->>'payment_id')::bigint = $1`,
      [paymentId],
    );
    expect(rows).toHaveLength(1);
    return rows[0].data as Record<string, unknown>;
  };
  const refundsOf = async (paymentId: number) =>
    (
      await c.db.query(
        `SELECT amount_minor, reason, automatic FROM refunds WHERE payment_id = $1 ORDER BY id`,
        [paymentId],
      )
    ).rows;
  const receiptsOf = async (paymentId: number) =>
    (
      await c.db.query(
        `SELECT body_text FROM notifications WHERE kind = 'RECEIPT' AND payment_id = $1`,
        [paymentId],
      )
    ).rows as { body_text: string }[];

  /** A PaymentSucceeded cannot be changed: frozen, with no way to write a reply into it. */
  const expectImmutable = (capture: PaymentSucceeded, settled: CaptureSettled) => {
    expect(Object.isFrozen(capture)).toBe(true);
    expect(Object.isFrozen(settled)).toBe(true);
    expect('leaveExcess' in capture).toBe(false);
    expect('excessMinor' in capture).toBe(false);
    expect(() => {
      (capture as unknown as { amountMismatch: boolean }).amountMismatch = true;
    }).toThrow(TypeError);
    expect(() => {
      (settled as unknown as { excessMinor: number }).excessMinor = 1;
    }).toThrow(TypeError);
  };

  it('the handler orders are two: settle, then the outbox', () => {
    expect(HandlerOrder).toEqual({ SETTLE: 0, OUTBOX: 1000 });
  });

  it('a full pay: everything counted, no excess, a receipt for all of it', async () => {
    const invoice = await invoiceOf('cs-full', 100000);
    const p = await payOn(invoice.id, 100000);
    await settle(p.id);
    const { capture, settled } = captureOf(p.id);
    expect(capture.amountMismatch).toBe(false);
    expect(settled).toMatchObject({ countedMinor: 100000, excessMinor: 0, mismatch: false });
    expect(settled.payment.id).toBe(p.id);
    expectImmutable(capture, settled);
    // payment.succeeded (from the settlement), then the invoice.paid it caused.
    const kinds = published.map((f) => f.constructor.name);
    expect(kinds.indexOf('CaptureSettled')).toBeLessThan(kinds.indexOf('InvoicePaid'));
    expect(await succeededEvent(p.id)).toMatchObject({ excess_minor: 0, amount_minor: 100000 });
    expect((await payments.get(scope, p.id)).excessMinor).toBe(0);
    expect(await refundsOf(p.id)).toEqual([]);
    const receipts = await receiptsOf(p.id);
    expect(receipts).toHaveLength(1);
    expect(receipts[0].body_text).toContain('৳1,000.00');
  });

  it('an over-pay: the invoice counts what it still needed, the rest is excess, refunded', async () => {
    const invoice = await invoiceOf('cs-over', 100000);
    const late = await payOn(invoice.id, 60000);
    await expireNow(late.id);
    const paid = await payOn(invoice.id, 60000);
    await settle(paid.id);
    published = [];
    await settle(late.id); // paid after its deadline: 40,000.00 was still due
    const { capture, settled } = captureOf(late.id);
    expect(capture).toBeInstanceOf(PaymentRevived);
    expect(settled).toMatchObject({ countedMinor: 40000, excessMinor: 20000, mismatch: false });
    expectImmutable(capture, settled);
    expect(await succeededEvent(late.id)).toMatchObject({
      excess_minor: 20000,
      previous_status: 'expired',
    });
    expect((await payments.get(scope, late.id)).excessMinor).toBe(20000);
    expect(await refundsOf(late.id)).toEqual([
      { amount_minor: 20000, reason: 'excess_capture', automatic: true },
    ]);
    const receipts = await receiptsOf(late.id);
    expect(receipts).toHaveLength(1);
    expect(receipts[0].body_text).toContain('৳400.00');
    const { rows } = await c.db.query(
      `SELECT status, amount_paid_minor FROM invoices WHERE id = $1`,
      [invoice.id],
    );
    expect(rows[0]).toEqual({ status: 'PAID', amount_paid_minor: 100000 });
  });

  it('a capture of another amount: nothing counted, all of it excess, refunded as amount_mismatch', async () => {
    const invoice = await invoiceOf('cs-mismatch', 90000);
    const p = await payOn(invoice.id, 90000);
    await c.db.query(
      `UPDATE sandbox_sessions SET amount_minor = amount_minor + 100
        WHERE session_id = (SELECT gateway_session_id FROM payments WHERE id = $1)`,
      [p.id],
    );
    published = [];
    await settle(p.id);
    const { capture, settled } = captureOf(p.id);
    expect(capture.amountMismatch).toBe(true);
    expect(settled).toMatchObject({ countedMinor: 0, excessMinor: 90100, mismatch: true });
    expectImmutable(capture, settled);
    expect(published.some((f) => f.constructor.name.startsWith('Invoice'))).toBe(false);
    expect(await succeededEvent(p.id)).toMatchObject({ excess_minor: 90100, amount_minor: 90100 });
    expect((await payments.get(scope, p.id)).excessMinor).toBe(90100);
    expect(await refundsOf(p.id)).toEqual([
      { amount_minor: 90100, reason: 'amount_mismatch', automatic: true },
    ]);
    expect(await receiptsOf(p.id)).toEqual([]);
    const { rows } = await c.db.query(
      `SELECT status, amount_paid_minor FROM invoices WHERE id = $1`,
      [invoice.id],
    );
    expect(rows[0]).toEqual({ status: 'ISSUED', amount_paid_minor: 0 });
  });

  it('a capture on an already-paid invoice: nothing counted, all of it excess, no receipt, no second invoice.paid', async () => {
    const invoice = await invoiceOf('cs-paid', 100000);
    const first = await payOn(invoice.id, 100000);
    await expireNow(first.id);
    const second = await payOn(invoice.id, 100000);
    await settle(second.id);
    published = [];
    await settle(first.id);
    const { capture, settled } = captureOf(first.id);
    expect(settled).toMatchObject({ countedMinor: 0, excessMinor: 100000, mismatch: false });
    expectImmutable(capture, settled);
    expect(published.some((f) => f.constructor.name.startsWith('Invoice'))).toBe(false);
    expect(await succeededEvent(first.id)).toMatchObject({ excess_minor: 100000 });
    expect((await payments.get(scope, first.id)).excessMinor).toBe(100000);
    expect(await refundsOf(first.id)).toEqual([
      { amount_minor: 100000, reason: 'excess_capture', automatic: true },
    ]);
    expect(await receiptsOf(first.id)).toEqual([]);
  });

  it('a payment tied to no invoice is settled too: kept whole, nothing to refund', async () => {
    const p = await billing.createPayment(scope, {
      amountMinor: 5000,
      customerReference: 'cs-free',
    });
    await settle(p.id);
    const { capture, settled } = captureOf(p.id);
    expect(settled).toMatchObject({ countedMinor: 5000, excessMinor: 0, mismatch: false });
    expectImmutable(capture, settled);
    expect(await succeededEvent(p.id)).toMatchObject({ excess_minor: 0, invoice_id: null });
    expect(await refundsOf(p.id)).toEqual([]);
    expect(await receiptsOf(p.id)).toEqual([]);
  });

  it('a settlement that does not add up to the capture is refused', () => {
    const fact = new PaymentSucceeded(
      scope,
      { id: 1, amountMinor: 1000 } as never,
      'PENDING',
      'nobody',
    );
    expect(Object.isFrozen(fact)).toBe(true);
    const amount = fact.payment.amountMinor;
    expect(() => new CaptureSettled(fact, amount, 1)).toThrow(/cannot settle/);
    expect(() => new CaptureSettled(fact, amount + 1, -1)).toThrow(/cannot settle/);
    const mismatched = new PaymentSucceeded(scope, fact.payment, 'PENDING', 'nobody', true);
    expect(() => new CaptureSettled(mismatched, amount, 0)).toThrow(/cannot settle/);
    expect(new CaptureSettled(mismatched, 0, amount)).toMatchObject({ mismatch: true });
  });
});
