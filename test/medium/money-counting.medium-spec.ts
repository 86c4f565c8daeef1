import { Client } from 'pg';

import { MoneyIntegrity1795340000000 } from '../../migrations/1795340000000-MoneyIntegrity';
import { RefundsCompositeKeys1797000007000 } from '../../migrations/1797000007000-RefundsCompositeKeys';
import { InvoicePaymentsService } from '../../src/billing';
import { AppError } from '../../src/common/errors/app-error';
import type { TenantScope } from '../../src/database/tenant';
import { SandboxGateway } from '../../src/gateways';
import { InvoicesService } from '../../src/invoices';
import { DailyCollectionsService } from '../../src/ledger';
import { PaymentSimulationService, PaymentsService } from '../../src/payments';
import { RefundsService } from '../../src/refunds';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { serviceFixture } from '../support/service-fixture';
import { createTestDatabase } from '../support/test-app';
import { insertApp } from '../support/test-context';

/**
 * Money counting as services on a real database (issue 57): an invoice
 * counts at most its total and what a capture brings beyond it is the
 * payment's excess; open payments reserve what is due; a capture on a
 * cancelled or voided payment is refused or counted as excess; the database
 * backs it; collections, refunds and net are summed per Asia/Dhaka day
 * (refunds on the day they succeeded). What only HTTP shows
 * (the pay page's answers, races fired through the API, statuses and
 * envelopes) stays in test/e2e/money-integrity.e2e-spec.ts and
 * daily-collections.e2e-spec.ts.
 */
describe('money counting (medium tier)', () => {
  const f = serviceFixture({ balancedLedger: true, appName: 'Money counting' });
  let billing: InvoicePaymentsService;
  let invoices: InvoicesService;
  let payments: PaymentsService;
  let helpers: TestHelpersService;
  let sandbox: SandboxGateway;
  beforeAll(() => {
    billing = f.get(InvoicePaymentsService);
    invoices = f.get(InvoicesService);
    payments = f.get(PaymentsService);
    helpers = f.get(TestHelpersService);
    sandbox = f.get(SandboxGateway);
  });

  const newInvoice = (
    customerReference: string,
    amountMinor = 100000,
    scope: TenantScope = f.scope,
  ) =>
    invoices.create(scope, {
      customerReference,
      currency: 'BDT',
      lineItems: [{ description: 'Order', qty: 1, unitAmountMinor: amountMinor }],
    });
  const tokenOf = (view: { payableUrl: string }) => view.payableUrl.split('/pay/')[1];
  const paymentsOf = async (invoiceId: number) =>
    (
      await f.c.db.query(
        'SELECT id, status, amount_minor, excess_minor FROM payments WHERE invoice_id = $1 ORDER BY id',
        [invoiceId],
      )
    ).rows.map((r) => ({
      id: Number(r.id),
      status: r.status as string,
      amount_minor: Number(r.amount_minor),
      excess_minor: Number(r.excess_minor),
    }));
  const invoiceRow = async (id: number) =>
    (await f.c.db.query('SELECT status, amount_paid_minor FROM invoices WHERE id = $1', [id]))
      .rows[0] as { status: string; amount_paid_minor: number };
  const eventsOf = async (type: string, key: 'invoice_id' | 'payment_id', id: number) =>
    (
      await f.c.db.query(
        `SELECT type, data FROM events WHERE app_id = $1 AND type LIKE $2 AND (data->>'${key}')::bigint = $3 ORDER BY id`,
        [f.scope.appId, `${type}%`, id],
      )
    ).rows as { type: string; data: Record<string, unknown> }[];
  const expireNow = (id: number) => f.get(PaymentSimulationService).expireNow(f.scope, id);
  /** The customer pays on the sandbox checkout, and the payment is confirmed (as by the return). */
  const customerPays = (id: number) => helpers.settlePayment(f.scope, id, 'succeeded');
  /** What a call was refused with. */
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a refusal');
      },
      (e: unknown) => {
        expect(e).toBeInstanceOf(AppError);
        return e as AppError;
      },
    );

  describe('what an invoice counts and what is excess', () => {
    it('Pay, expire, Pay again, both paid: the invoice counts its total once; the second capture is excess', async () => {
      const view = await newInvoice('twice-1');
      const { invoice } = view;
      const a = await billing.payFromPage(tokenOf(view));
      expect((await expireNow(a.id)).status).toBe('EXPIRED');
      const b = await billing.payFromPage(tokenOf(view));
      expect(b.id).not.toBe(a.id);
      expect(b.gatewaySessionId).not.toBe(a.gatewaySessionId);
      await customerPays(b.id);
      await customerPays(a.id); // the expired checkout A was still payable

      expect(await invoiceRow(invoice.id)).toEqual({ status: 'PAID', amount_paid_minor: 100000 });
      expect(await paymentsOf(invoice.id)).toEqual([
        { id: a.id, status: 'SUCCEEDED', amount_minor: 100000, excess_minor: 100000 },
        { id: b.id, status: 'SUCCEEDED', amount_minor: 100000, excess_minor: 0 },
      ]);
      const succeeded = await eventsOf('payment.succeeded', 'invoice_id', invoice.id);
      expect(succeeded.map((e) => [e.data.payment_id, e.data.excess_minor])).toEqual([
        [b.id, 0],
        [a.id, 100000],
      ]);
      const invoiceEvents = await eventsOf('invoice.', 'invoice_id', invoice.id);
      expect(invoiceEvents.map((e) => e.type)).toEqual(['invoice.issued', 'invoice.paid']);
    });

    it('Pay clicked again after the expired checkout was paid at the gateway: that capture is recorded first; no new checkout opens', async () => {
      const view = await newInvoice('twice-2');
      const a = await billing.payFromPage(tokenOf(view));
      await expireNow(a.id);
      // The customer pays A at the gateway, but the return never reaches Joma.
      expect(await sandbox.complete(a.gatewaySessionId!, 'pay')).toMatchObject({ refused: false });
      const again = await refusal(billing.payFromPage(tokenOf(view)));
      expect(again).toMatchObject({ code: 'INVALID_STATE', message: 'This invoice is paid' });
      expect(await paymentsOf(view.invoice.id)).toEqual([
        { id: a.id, status: 'SUCCEEDED', amount_minor: 100000, excess_minor: 0 },
      ]);
      expect(await invoiceRow(view.invoice.id)).toEqual({
        status: 'PAID',
        amount_paid_minor: 100000,
      });
    });
  });

  describe('API payments of an invoice', () => {
    it('open payments reserve the amount due: a second full payment is refused naming the open one', async () => {
      const { invoice } = await newInvoice('api-1', 90000);
      const first = await billing.createPayment(f.scope, {
        amountMinor: 90000,
        invoiceId: invoice.id,
        customerReference: 'api-1',
      });
      const second = await refusal(
        billing.createPayment(f.scope, { amountMinor: 90000, invoiceId: invoice.id }),
      );
      expect(second.code).toBe('AMOUNT_OUT_OF_RANGE');
      expect(second.message).toContain(`open payments ${first.id}`);
      expect(second.details).toEqual([{ field: 'amountMinor', message: second.message }]);
      // What is not reserved can still be paid: nothing here.
      await expect(
        billing.createPayment(f.scope, { amountMinor: 1000, invoiceId: invoice.id }),
      ).rejects.toMatchObject({ code: 'AMOUNT_OUT_OF_RANGE' });
      expect((await paymentsOf(invoice.id)).map((p) => p.id)).toEqual([first.id]);
    });

    it("customerReference may be left out (the invoice's customer pays); a different one is refused naming it", async () => {
      const { invoice } = await newInvoice('owner-1');
      await expect(
        billing.createPayment(f.scope, {
          amountMinor: 5000,
          invoiceId: invoice.id,
          customerReference: 'someone-else',
        }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [
          {
            field: 'customerReference',
            message: "customerReference must be the invoice's customer (or be left out)",
          },
        ],
      });
      expect(await paymentsOf(invoice.id)).toEqual([]);
      const omitted = await billing.createPayment(f.scope, {
        amountMinor: 5000,
        invoiceId: invoice.id,
      });
      const owner = await f.c.db.query(
        'SELECT c.external_id FROM payments p JOIN customers c ON c.id = p.customer_id WHERE p.id = $1',
        [omitted.id],
      );
      expect(owner.rows[0].external_id).toBe('owner-1');
      expect(omitted.customerId).toBe(invoice.customerId);
    });
  });

  describe('captures on cancelled payments and void invoices', () => {
    it('void while the customer is on the checkout: the checkout is closed, the customer and the settle helper are refused', async () => {
      const { invoice } = await newInvoice('void-1');
      const p = await billing.createPayment(f.scope, {
        amountMinor: 100000,
        invoiceId: invoice.id,
      });
      expect((await invoices.void(f.scope, invoice.id)).invoice.status).toBe('VOID');
      expect(await sandbox.complete(p.gatewaySessionId!, 'pay')).toMatchObject({
        refused: true,
        session: { status: 'CLOSED', txnId: null },
      });
      await expect(customerPays(p.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });
      expect(await paymentsOf(invoice.id)).toEqual([
        { id: p.id, status: 'CANCELLED', amount_minor: 100000, excess_minor: 0 },
      ]);
      expect(await invoiceRow(invoice.id)).toEqual({ status: 'VOID', amount_paid_minor: 0 });
    });

    it('expire, void, late capture: the payment succeeds, all of it excess; the VOID invoice holds no money', async () => {
      const { invoice } = await newInvoice('void-2');
      const p = await billing.createPayment(f.scope, {
        amountMinor: 100000,
        invoiceId: invoice.id,
      });
      expect((await expireNow(p.id)).status).toBe('EXPIRED');
      expect((await invoices.void(f.scope, invoice.id)).invoice.status).toBe('VOID');
      // Expiry never closes a checkout: the customer can still pay, and it is recorded.
      const late = await customerPays(p.id);
      expect(late).toMatchObject({ status: 'SUCCEEDED', excessMinor: 100000 });
      expect(await invoiceRow(invoice.id)).toEqual({ status: 'VOID', amount_paid_minor: 0 });
      const [ev] = await eventsOf('payment.succeeded', 'payment_id', p.id);
      expect(ev.data).toMatchObject({ previous_status: 'expired', excess_minor: 100000 });
    });

    it('an explicit cancel closes the checkout; a payment without an invoice has no excess', async () => {
      const p = await billing.createPayment(f.scope, {
        amountMinor: 50000,
        customerReference: 'plain',
      });
      expect(p.excessMinor).toBe(0);
      expect((await payments.cancel(f.scope, p.id)).status).toBe('CANCELLED');
      expect(await sandbox.complete(p.gatewaySessionId!, 'pay')).toMatchObject({
        refused: true,
        session: { status: 'CLOSED' },
      });
      await expect(customerPays(p.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });
      expect(await payments.get(f.scope, p.id)).toMatchObject({
        status: 'CANCELLED',
        excessMinor: 0,
      });
    });
  });

  describe('the database backs the rules', () => {
    it('refuses an invoice counting more than its total, a VOID without voided_at, a wrong line total, cross-partition links', async () => {
      const { invoice } = await newInvoice('db-1');
      const tryQuery = (sql: string, params: unknown[]) =>
        f.c.db.query(sql, params).then(
          () => 'ok',
          (e: { code: string; constraint?: string }) => `${e.code} ${e.constraint ?? ''}`.trim(),
        );
      expect(
        await tryQuery('UPDATE invoices SET amount_paid_minor = total_minor + 1 WHERE id = $1', [
          invoice.id,
        ]),
      ).toBe('23514 invoices_paid_within_total');
      expect(
        await tryQuery(`UPDATE invoices SET status = 'VOID' WHERE id = $1`, [invoice.id]),
      ).toBe('23514 invoices_void_has_voided_at');
      expect(
        await tryQuery(
          'UPDATE invoice_line_items SET line_total_minor = line_total_minor + 1 WHERE invoice_id = $1',
          [invoice.id],
        ),
      ).toBe('23514 invoice_line_items_total');
      const liveScope: TenantScope = { appId: f.scope.appId, mode: 'LIVE' };
      const { invoice: live } = await newInvoice('db-live', 100000, liveScope);
      expect(
        await tryQuery('UPDATE invoices SET customer_id = $2 WHERE id = $1', [
          invoice.id,
          live.customerId,
        ]),
      ).toBe('23503 invoices_customer_same_partition');
      const p = await billing.createPayment(f.scope, {
        amountMinor: 50000,
        customerReference: 'db-1',
      });
      expect(
        await tryQuery('UPDATE payments SET invoice_id = $2 WHERE id = $1', [p.id, live.id]),
      ).toBe('23503 payments_invoice_same_partition');
      expect(
        await tryQuery('UPDATE payments SET excess_minor = amount_minor + 1 WHERE id = $1', [p.id]),
      ).toMatch(/^23514 payments_excess/);
    });
  });

  describe('the migration on data from before the rule', () => {
    it('moves what over-counted invoices hold into their latest payments as excess, then adds the constraints', async () => {
      const url = await createTestDatabase('moneymig');
      const c = new Client({ connectionString: url });
      await c.connect();
      try {
        const q = { query: (sql: string) => c.query(sql) };
        const migration = new MoneyIntegrity1795340000000();
        // A later migration's keys rest on this one's: taken off first, as a rollback would.
        await new RefundsCompositeKeys1797000007000().down(q as never);
        await migration.down(q as never);
        const appId = (await c.query(`INSERT INTO apps (name) VALUES ('Old data') RETURNING id`))
          .rows[0].id as number;
        const cust = (
          await c.query(
            `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'TEST', 'old') RETURNING id`,
            [appId],
          )
        ).rows[0].id as number;
        const inv = async (number: string, status: string, total: number, paid: number) =>
          (
            await c.query(
              `INSERT INTO invoices (app_id, mode, number, status, customer_id, total_minor, amount_paid_minor, pay_token, due_date, issued_at, voided_at)
               VALUES ($1, 'TEST', $2, $3, $4, $5, $6, $7, CURRENT_DATE, now(), CASE WHEN $3 = 'VOID' THEN now() END) RETURNING id`,
              [appId, number, status, cust, total, paid, `tok_${number}_${'x'.repeat(24)}`],
            )
          ).rows[0].id as number;
        let seq = 0;
        const pay = async (invoiceId: number, amount: number, succeededAt: string) =>
          (
            await c.query(
              `INSERT INTO payments (app_id, mode, reference, status, amount_minor, gateway, customer_id, invoice_id, expires_at, succeeded_at)
               VALUES ($1, 'TEST', $2, 'SUCCEEDED', $3, 'sandbox', $4, $5, now(), $6) RETURNING id`,
              [appId, `pay_old_${++seq}_${'y'.repeat(12)}`, amount, cust, invoiceId, succeededAt],
            )
          ).rows[0].id as number;
        // Paid twice (the seed's double charge): 40,000 on a 20,000 invoice.
        const twice = await inv('INV-1', 'PAID', 20000, 40000);
        const t1 = await pay(twice, 20000, '2026-01-01T10:00:00Z');
        const t2 = await pay(twice, 20000, '2026-01-01T11:00:00Z');
        // Three API payments settled: 270,000 on a 90,000 invoice.
        const thrice = await inv('INV-2', 'PAID', 90000, 270000);
        const h = [
          await pay(thrice, 90000, '2026-01-02T10:00:00Z'),
          await pay(thrice, 90000, '2026-01-02T11:00:00Z'),
          await pay(thrice, 90000, '2026-01-02T12:00:00Z'),
        ];
        // A late capture on a VOID invoice.
        const voided = await inv('INV-3', 'VOID', 5000, 5000);
        const v = await pay(voided, 5000, '2026-01-03T10:00:00Z');
        // An honest one stays as it is.
        const fine = await inv('INV-4', 'PAID', 7000, 7000);
        const fp = await pay(fine, 7000, '2026-01-04T10:00:00Z');

        await migration.up(q as never);

        const rows = (
          await c.query(
            'SELECT id, amount_paid_minor FROM invoices WHERE app_id = $1 ORDER BY id',
            [appId],
          )
        ).rows;
        expect(rows).toEqual([
          { id: twice, amount_paid_minor: 20000 },
          { id: thrice, amount_paid_minor: 90000 },
          { id: voided, amount_paid_minor: 0 },
          { id: fine, amount_paid_minor: 7000 },
        ]);
        const excess = Object.fromEntries(
          (
            await c.query('SELECT id, excess_minor FROM payments WHERE app_id = $1', [appId])
          ).rows.map((r) => [r.id, Number(r.excess_minor)]),
        );
        expect(excess).toEqual({
          [t1]: 0,
          [t2]: 20000,
          [h[0]]: 0,
          [h[1]]: 90000,
          [h[2]]: 90000,
          [v]: 5000,
          [fp]: 0,
        });
        // The constraints are in place afterwards.
        await expect(
          c.query('UPDATE invoices SET amount_paid_minor = total_minor + 1 WHERE id = $1', [fine]),
        ).rejects.toMatchObject({ constraint: 'invoices_paid_within_total' });
      } finally {
        await c.end();
      }
    });
  });

  /**
   * What the Overview shows (decisions sections 15 and 20), from the ledger's
   * DailyCollectionsService: gross collected per Asia/Dhaka day (captures,
   * PaymentsService), refunded (refunds on the day they succeeded, the
   * ledger's postings) and net.
   */
  describe('collections, refunds and net per Asia/Dhaka day', () => {
    let daily: DailyCollectionsService;
    let app: TenantScope;
    let other: TenantScope;
    const at = (iso: string) => f.c.clock.freeze(new Date(iso));
    beforeAll(async () => {
      daily = f.get(DailyCollectionsService);
      const refunds = f.get(RefundsService);
      app = { appId: await insertApp(f.c.db, 'Collections'), mode: 'TEST' };
      other = { appId: await insertApp(f.c.db, 'Other collections'), mode: 'TEST' };
      const captured = async (scope: TenantScope, amountMinor: number, outcome = 'succeeded') => {
        const p = await billing.createPayment(scope, { amountMinor, customerReference: 'daily' });
        const done = await helpers.settlePayment(scope, p.id, outcome as 'succeeded');
        expect(done.status).toBe(outcome.toUpperCase());
        return p.id;
      };
      const refunded = async (scope: TenantScope, paymentId: number, amountMinor: number) =>
        refunds.create(scope, paymentId, { amountMinor, reason: 'daily' });
      // 23:30 on 29 November in Dhaka (UTC+6).
      at('2026-11-29T17:30:00.000Z');
      const a = await captured(app, 10_000);
      const b = await captured(app, 5_050);
      const large = await captured(app, 2_000_000);
      await captured(app, 99_999, 'failed');
      await captured(other, 777_777);
      // Refunded the day it was captured.
      expect((await refunded(app, b, 1_050)).status).toBe('SUCCEEDED');
      // Above the approval threshold (৳10,000): asked for on the 29th, PENDING until approved.
      const waiting = await refunded(app, large, 1_500_000);
      expect(waiting).toMatchObject({ status: 'PENDING', approvalRequired: true });
      // The last instant of the 29th in Dhaka, then its midnight: the 30th (still the 29th in UTC).
      at('2026-11-29T17:59:59.999Z');
      expect((await refunded(app, a, 1_000)).status).toBe('SUCCEEDED');
      at('2026-11-29T18:00:00.000Z');
      expect((await refunded(app, a, 2_000)).status).toBe('SUCCEEDED');
      // 00:30 on the 30th: a capture, and the waiting refund approved: it succeeds today.
      at('2026-11-29T18:30:00.000Z');
      await captured(app, 20_000);
      expect((await refunds.approve(waiting.id)).status).toBe('SUCCEEDED');
    });
    afterAll(() => f.c.clock.reset());

    it('sums captures and the refunds that succeeded per Asia/Dhaka day, oldest first, days without any at 0; net may be negative', async () => {
      expect(await daily.list(app, 3)).toEqual([
        { date: '2026-11-28', collectedMinor: 0, refundedMinor: 0, netMinor: 0, payments: 0 },
        // 1,050 of b the same day, 1,000 of a at 23:59:59.999; not the refund still awaiting approval.
        {
          date: '2026-11-29',
          collectedMinor: 2_015_050,
          refundedMinor: 2_050,
          netMinor: 2_013_000,
          payments: 3,
        },
        // 2,000 of a at 00:00 (captured the day before), and the approved 1,500,000 (asked for the day before).
        {
          date: '2026-11-30',
          collectedMinor: 20_000,
          refundedMinor: 1_502_000,
          netMinor: -1_482_000,
          payments: 1,
        },
      ]);
    });

    it('counts the days ending today, and keeps to its partition (app and mode)', async () => {
      const month = await daily.list(app, 30);
      expect(month).toHaveLength(30);
      expect(month[29].date).toBe('2026-11-30');
      expect(month[0].date).toBe('2026-11-01');
      const sum = (k: 'collectedMinor' | 'refundedMinor' | 'netMinor' | 'payments') =>
        month.reduce((s, d) => s + d[k], 0);
      expect([
        sum('collectedMinor'),
        sum('refundedMinor'),
        sum('netMinor'),
        sum('payments'),
      ]).toEqual([2_035_050, 1_504_050, 531_000, 4]);
      // Today alone: the boundary's refund is the 30th's, not the 29th's.
      expect(await daily.list(app, 1)).toEqual([
        {
          date: '2026-11-30',
          collectedMinor: 20_000,
          refundedMinor: 1_502_000,
          netMinor: -1_482_000,
          payments: 1,
        },
      ]);
      const live = await daily.list({ appId: app.appId, mode: 'LIVE' }, 3);
      expect(live.map((d) => [d.collectedMinor, d.refundedMinor, d.netMinor])).toEqual([
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
      ]);
      expect(
        (await daily.list(other, 3)).map((d) => [d.collectedMinor, d.refundedMinor, d.netMinor]),
      ).toEqual([
        [0, 0, 0],
        [777_777, 0, 777_777],
        [0, 0, 0],
      ]);
    });
  });
});
