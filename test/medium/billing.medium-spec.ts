import { Transactional } from '@nestjs-cls/transactional';

import { InvoicePaymentsService } from '../../src/billing';
import { DomainEventBus } from '../../src/common/domain-events';
import { AppError } from '../../src/common/errors/app-error';
import { InvoicesService } from '../../src/invoices';
import { PaymentConfirmationsService, PaymentSucceeded } from '../../src/payments';
import { createTestContext, insertApp, TestContext } from '../support/test-context';

/** The billing use cases and the money-core seams, called as services: no HTTP in between. */
describe('billing use cases (medium tier: services on a real database)', () => {
  let c: TestContext;
  let scope: { appId: number; mode: 'TEST' };
  let billing: InvoicePaymentsService;
  let invoices: InvoicesService;
  beforeAll(async () => {
    c = await createTestContext();
    scope = { appId: await insertApp(c.db), mode: 'TEST' };
    billing = c.app.get(InvoicePaymentsService);
    invoices = c.app.get(InvoicesService);
  });
  afterAll(() => c.close());

  const newInvoice = (ref: string, amount = 100000) =>
    invoices.create(scope, {
      customerReference: ref,
      currency: 'BDT',
      lineItems: [{ description: 'Item', qty: 1, unitAmountMinor: amount }],
    });

  it('pays an invoice only up to what is due, counting open payments as reserved', async () => {
    const { invoice } = await newInvoice('m-1');
    const first = await billing.createPayment(scope, { amountMinor: 60000, invoiceId: invoice.id });
    expect(first).toMatchObject({ status: 'PENDING', customerId: invoice.customerId });
    expect(first.checkoutUrl).toContain('/sandbox/checkout/');
    const refused = billing.createPayment(scope, { amountMinor: 50000, invoiceId: invoice.id });
    await expect(refused).rejects.toMatchObject({ code: 'AMOUNT_OUT_OF_RANGE' });
    await expect(refused).rejects.toBeInstanceOf(AppError);
    const rest = await billing.createPayment(scope, { amountMinor: 40000, invoiceId: invoice.id });
    expect(rest.amountMinor).toBe(40000);
    const { rows } = await c.db.query(
      `SELECT amount_minor FROM payments WHERE invoice_id = $1 ORDER BY id`,
      [invoice.id],
    );
    expect(rows.map((r) => Number(r.amount_minor))).toEqual([60000, 40000]);
  });

  it('the pay button reuses the open payment for the amount due instead of opening another', async () => {
    const view = await newInvoice('m-2');
    const token = view.payableUrl.split('/pay/')[1];
    const a = await billing.payFromPage(token);
    const b = await billing.payFromPage(token);
    expect(b.id).toBe(a.id);
    expect(b.gatewaySessionId).toBe(a.gatewaySessionId);
  });

  it('two sweeps at once share due payments through their leases: each expires once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const p = await billing.createPayment(scope, {
        amountMinor: 5000,
        customerReference: `sw-${i}`,
      });
      ids.push(p.id);
    }
    await c.db.query(
      `UPDATE payments SET expires_at = now() - interval '1 minute' WHERE id = ANY($1)`,
      [ids],
    );
    const confirmations = c.app.get(PaymentConfirmationsService);
    const [x, y] = await Promise.all([confirmations.expireDue(4), confirmations.expireDue(4)]);
    const again = await confirmations.expireDue(4);
    expect(x + y + again).toBe(6);
    const { rows } = await c.db.query(
      `SELECT status, count(*)::int AS n FROM payments WHERE id = ANY($1) GROUP BY status`,
      [ids],
    );
    expect(rows).toEqual([{ status: 'EXPIRED', n: 6 }]);
    const events = await c.db.query(
      `SELECT count(*)::int AS n FROM events WHERE type = 'payment.expired' AND (data->>'payment_id')::bigint = ANY($1)`,
      [ids],
    );
    expect(events.rows[0].n).toBe(6);
  });

  it('the bus refuses a fact published outside a transaction (it would commit apart from its change)', async () => {
    const bus = c.app.get(DomainEventBus);
    const fact = new PaymentSucceeded(
      scope,
      { id: 1, invoiceId: null } as never,
      'PENDING',
      'nobody',
    );
    await expect(bus.publish(fact)).rejects.toThrow(/inside the transaction/);
  });

  it('a fact published inside a transaction reaches the outbox with it, or not at all', async () => {
    const bus = c.app.get(DomainEventBus);
    const count = async () =>
      (await c.db.query(`SELECT count(*)::int AS n FROM events`)).rows[0].n as number;
    const fact = () =>
      new PaymentSucceeded(
        scope,
        {
          id: 1,
          invoiceId: null,
          reference: 'x',
          amountMinor: 1000,
          excessMinor: 0,
          currency: 'BDT',
          gateway: 'sandbox',
          gatewayTxnId: null,
          paymentMethod: null,
          metadata: null,
          riskLevel: 'NORMAL',
          succeededAt: null,
        } as never,
        'PENDING',
        'nobody',
      );
    class Probe {
      @Transactional()
      async publish(fail: boolean): Promise<void> {
        await bus.publish(fact());
        if (fail) throw new Error('rolled back');
      }
    }
    const before = await count();
    await new Probe().publish(false);
    expect(await count()).toBe(before + 1);
    await expect(new Probe().publish(true)).rejects.toThrow('rolled back');
    expect(await count()).toBe(before + 1);
  });
});
