import { Client } from 'pg';

import { TemplatePerMode1795350000000 } from '../../migrations/1795350000000-TemplatePerMode';
import { InvoicePaymentsService } from '../../src/billing';
import type { TenantScope } from '../../src/database/tenant';
import { InvoicesService, InvoiceTemplatesService } from '../../src/invoices';
import { toInvoiceDto } from '../../src/invoices/invoice.mapper';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { serviceFixture } from '../support/service-fixture';
import { createTestDatabase } from '../support/test-app';
import { insertApp } from '../support/test-context';

type Line = { description: string; qty: number; unitAmountMinor: number };

/**
 * The rules of invoices as services on a real database, with no HTTP in
 * between (test/e2e/invoices.e2e-spec.ts and invoice-dates.e2e-spec.ts keep
 * the contract: statuses, envelopes, validation 400s, the partition's 404s,
 * lists and filters, Idempotency-Key replays, the pay page's HTML): totals
 * and line math, the app's maximum, BDT only, gapless numbers per app and
 * mode (also under concurrent creates and failed ones), Asia/Dhaka due
 * dates, ISSUED -> PARTIALLY_PAID -> PAID as captures land, void (its open
 * payments cancelled), one template per app and mode, and the invoice.*
 * facts written to the events outbox.
 */
describe('invoices (medium tier: services on a real database)', () => {
  const f = serviceFixture({ balancedLedger: true, appName: 'Invoice Shop' });
  let seq = 0;
  let invoices: InvoicesService;
  let billing: InvoicePaymentsService;
  beforeAll(() => {
    invoices = f.get(InvoicesService);
    billing = f.get(InvoicePaymentsService);
  });
  // Tests that freeze or move the wall clock put it back.
  afterEach(() => f.c.clock.reset());

  /** A new app of its own (numbers start at INV-000001 per app and mode). */
  const newApp = async () => insertApp(f.c.db, `Invoices ${++seq}`);
  const test = (appId: number): TenantScope => ({ appId, mode: 'TEST' });
  const create = (
    scope: TenantScope,
    input: {
      customerReference?: string;
      lineItems?: Line[];
      dueDate?: string;
      currency?: string;
      metadata?: Record<string, unknown>;
      customerName?: string;
      customerEmail?: string;
    } = {},
  ) =>
    invoices.create(scope, {
      customerReference: 'cust-1',
      lineItems: [{ description: 'Item', qty: 1, unitAmountMinor: 100000 }],
      ...input,
    });
  const numberOf = async (scope: TenantScope) => (await create(scope)).invoice.number;
  const countInvoices = async (appId: number) =>
    (await f.c.db.query('SELECT count(*)::int AS n FROM invoices WHERE app_id = $1', [appId]))
      .rows[0].n as number;
  /** The app's events (the outbox), oldest first. */
  const eventsOf = async (appId: number, typePrefix = '') =>
    (
      await f.c.db.query(
        'SELECT type, data FROM events WHERE app_id = $1 AND type LIKE $2 ORDER BY id',
        [appId, `${typePrefix}%`],
      )
    ).rows as { type: string; data: Record<string, any> }[];
  const pay = (scope: TenantScope, invoiceId: number, amountMinor: number) =>
    billing.createPayment(scope, { amountMinor, invoiceId });
  const settle = async (scope: TenantScope, paymentId: number) =>
    expect(
      (await f.get(TestHelpersService).settlePayment(scope, paymentId, 'succeeded')).status,
    ).toBe('SUCCEEDED');
  /** What a call was refused with. */
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a refusal');
      },
      (err: { code?: string; details?: unknown }) => ({ code: err.code, details: err.details }),
    );

  describe('totals, limits and dates', () => {
    it('totals are qty × unit amount per line, summed; due 7 days after issue by default; invoice.issued is written', async () => {
      f.c.clock.freeze(new Date('2026-11-22T12:00:00.000Z'));
      const view = await create(f.scope, {
        customerReference: 'inv-cust',
        customerName: 'Rahim',
        customerEmail: 'rahim@example.com',
        lineItems: [
          { description: 'Plan', qty: 3, unitAmountMinor: 10050 },
          { description: 'Setup', qty: 1, unitAmountMinor: 2500 },
        ],
        metadata: { orderId: 'A1' },
      });
      const inv = toInvoiceDto(view);
      expect(inv).toMatchObject({
        status: 'ISSUED',
        mode: 'TEST',
        applicationId: f.scope.appId,
        applicationName: 'Invoice Shop',
        customerReference: 'inv-cust',
        customerName: 'Rahim',
        customerEmail: 'rahim@example.com',
        totalMinor: 32650,
        amountPaidMinor: 0,
        amountDueMinor: 32650,
        currency: 'BDT',
        dueDate: '2026-11-29',
        issuedAt: '2026-11-22T12:00:00.000Z',
        payments: [],
        metadata: { orderId: 'A1' },
      });
      expect(inv.lineItems.map((l) => [l.description, l.lineTotalMinor])).toEqual([
        ['Plan', 30150],
        ['Setup', 2500],
      ]);
      expect(inv.payableUrl).toMatch(/\/pay\/[A-Za-z0-9_-]{30,}$/);
      const { rows } = await f.c.db.query(
        'SELECT position, line_total_minor::int AS total FROM invoice_line_items WHERE invoice_id = $1 ORDER BY position',
        [inv.id],
      );
      expect(rows).toEqual([
        { position: 1, total: 30150 },
        { position: 2, total: 2500 },
      ]);
      const issued = (await eventsOf(f.scope.appId, 'invoice.')).filter(
        (e) => e.data.invoice_id === inv.id,
      );
      expect(issued.map((e) => e.type)).toEqual(['invoice.issued']);
      expect(issued[0].data).toMatchObject({
        status: 'issued',
        number: inv.number,
        total_minor: 32650,
        customer_reference: 'inv-cust',
      });
    });

    it('a total above the app maximum is refused (AMOUNT_OUT_OF_RANGE: it could not be paid on the pay page) and writes nothing; exactly the maximum is issued', async () => {
      const appId = await newApp();
      const lines = (unitAmountMinor: number) => [{ description: 'x', qty: 2, unitAmountMinor }];
      expect(
        await refusal(
          create(test(appId), { customerReference: 'big', lineItems: lines(25_000_001) }),
        ),
      ).toMatchObject({ code: 'AMOUNT_OUT_OF_RANGE' });
      expect(await countInvoices(appId)).toBe(0);
      const exact = await create(test(appId), {
        customerReference: 'big',
        lineItems: lines(25_000_000),
      });
      expect(exact.invoice).toMatchObject({ totalMinor: 50_000_000, number: 'INV-000001' });
    });

    it('only BDT: another currency is refused (UNSUPPORTED_CURRENCY) and writes nothing', async () => {
      const appId = await newApp();
      expect(await refusal(create(test(appId), { currency: 'EUR' }))).toMatchObject({
        code: 'UNSUPPORTED_CURRENCY',
      });
      expect(await countInvoices(appId)).toBe(0);
      expect((await create(test(appId), { currency: 'BDT' })).invoice.currency).toBe('BDT');
    });

    it('the refusals the service decides: a total beyond 2^53-1, metadata over 8 KiB of JSON, a due date in the past; nothing is written', async () => {
      const appId = await newApp();
      expect(
        await refusal(
          create(test(appId), {
            lineItems: [{ description: 'x', qty: 3, unitAmountMinor: 4_000_000_000_000_000 }],
          }),
        ),
      ).toEqual({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field: 'lineTotal' })],
      });
      expect(await refusal(create(test(appId), { metadata: { note: 'x'.repeat(8200) } }))).toEqual({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field: 'metadata' })],
      });
      expect(await refusal(create(test(appId), { dueDate: '2020-01-01' }))).toEqual({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field: 'dueDate' })],
      });
      expect(await countInvoices(appId)).toBe(0);
    });

    it('dates are Asia/Dhaka dates: created at 2027-05-04T21:38Z (03:38 on 5 May in Dhaka) it is due 12 May; a due date before 5 May is refused, 5 May itself is fine', async () => {
      f.c.clock.freeze(new Date('2027-05-04T21:38:00Z'));
      expect((await create(f.scope, { customerReference: 'dawn' })).invoice.dueDate).toBe(
        '2027-05-12',
      );
      expect(
        await refusal(create(f.scope, { customerReference: 'dawn', dueDate: '2027-05-04' })),
      ).toEqual({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field: 'dueDate' })],
      });
      expect((await create(f.scope, { dueDate: '2027-05-05' })).invoice.dueDate).toBe('2027-05-05');
    });
  });

  describe('numbers', () => {
    it('gapless per app and mode, also under concurrent creates', async () => {
      const appId = await newApp();
      const results = await Promise.all(Array.from({ length: 20 }, () => create(test(appId))));
      expect(results.map((r) => r.invoice.number).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`),
      );
      expect(await numberOf({ appId, mode: 'LIVE' })).toBe('INV-000001');
      expect(await numberOf(test(await newApp()))).toBe('INV-000001');
    });

    it('a create that fails after taking its number leaves no gap', async () => {
      const appId = await newApp();
      // A database failure after the counter moved (numbers are taken last, just
      // before the invoice.issued event is recorded): recording this event raises.
      await f.c.db
        .query(`CREATE FUNCTION test_explode_event() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.type = 'invoice.issued' AND NEW.data::text LIKE '%"explode-customer"%'
          THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`);
      await f.c.db.query(`CREATE TRIGGER test_explode_event BEFORE INSERT ON events
        FOR EACH ROW EXECUTE FUNCTION test_explode_event()`);
      try {
        const first = await numberOf(test(appId));
        for (let i = 0; i < 2; i++)
          await expect(
            create(test(appId), { customerReference: 'explode-customer' }),
          ).rejects.toThrow('boom');
        const next = await numberOf(test(appId));
        expect([first, next]).toEqual(['INV-000001', 'INV-000002']);
        expect(await eventsOf(appId, 'invoice.issued')).toHaveLength(2);
        const rows = await f.c.db.query(
          `SELECT count(*)::int AS n, count(number)::int AS numbered FROM invoices WHERE app_id = $1`,
          [appId],
        );
        expect(rows.rows[0]).toEqual({ n: 2, numbered: 2 });
      } finally {
        await f.c.db.query('DROP TRIGGER test_explode_event ON events');
        await f.c.db.query('DROP FUNCTION test_explode_event()');
      }
    });

    it('padded to six digits, and growing past them instead of truncating', async () => {
      const appId = await newApp();
      expect(await numberOf(test(appId))).toBe('INV-000001');
      const counter = (n: number) =>
        f.c.db.query(
          `UPDATE invoice_counters SET last_number = $2 WHERE app_id = $1 AND mode = 'TEST'`,
          [appId, n],
        );
      await counter(999998);
      expect(await numberOf(test(appId))).toBe('INV-999999');
      expect(await numberOf(test(appId))).toBe('INV-1000000');
      await counter(12345677);
      expect(await numberOf(test(appId))).toBe('INV-12345678');
    });

    it('never commits an invoice without its number (a deferred check at commit)', async () => {
      const appId = await newApp();
      const c = await f.c.db.connect();
      try {
        const customer = await c.query(
          `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'TEST', 'unnumbered') RETURNING id`,
          [appId],
        );
        await c.query('BEGIN');
        await c.query(
          `INSERT INTO invoices (app_id, mode, status, customer_id, total_minor, amount_paid_minor, currency, due_date, issued_at, pay_token)
           VALUES ($1, 'TEST', 'ISSUED', $2, 100, 0, 'BDT', current_date, now(), 'tok-unnumbered-1')`,
          [appId, customer.rows[0].id],
        );
        await expect(c.query('COMMIT')).rejects.toMatchObject({ code: '23502' });
      } finally {
        c.release();
      }
      expect(await countInvoices(appId)).toBe(0);
    });
  });

  describe('states', () => {
    it('follows its payments: ISSUED -> PARTIALLY_PAID -> PAID with events; more than is due is refused; a paid invoice takes no payment and cannot be voided', async () => {
      const scope = f.scope;
      const { invoice } = await create(scope, {
        lineItems: [{ description: 'Big', qty: 1, unitAmountMinor: 300000 }],
      });
      expect(await refusal(pay(scope, invoice.id, 300001))).toMatchObject({
        code: 'AMOUNT_OUT_OF_RANGE',
      });
      const part = await pay(scope, invoice.id, 100000);
      await settle(scope, part.id);
      expect(toInvoiceDto(await invoices.get(scope, invoice.id))).toMatchObject({
        status: 'PARTIALLY_PAID',
        amountPaidMinor: 100000,
        amountDueMinor: 200000,
      });
      const rest = await pay(scope, invoice.id, 200000);
      await settle(scope, rest.id);
      const now = toInvoiceDto(await invoices.get(scope, invoice.id));
      expect(now).toMatchObject({ status: 'PAID', amountPaidMinor: 300000, amountDueMinor: 0 });
      expect(now.payments.map((p) => [p.id, p.status])).toEqual([
        [part.id, 'SUCCEEDED'],
        [rest.id, 'SUCCEEDED'],
      ]);
      const events = (await eventsOf(scope.appId, 'invoice.')).filter(
        (e) => e.data.invoice_id === invoice.id,
      );
      expect(events.map((e) => e.type)).toEqual([
        'invoice.issued',
        'invoice.partially_paid',
        'invoice.paid',
      ]);
      expect(events[2].data).toMatchObject({
        status: 'paid',
        payment_id: rest.id,
        amount_due_minor: 0,
      });
      expect(await refusal(pay(scope, invoice.id, 1000))).toMatchObject({ code: 'INVALID_STATE' });
      expect(await refusal(invoices.void(scope, invoice.id))).toMatchObject({
        code: 'INVALID_STATE',
      });
      expect((await invoices.get(scope, invoice.id)).invoice.status).toBe('PAID');
    });

    it('void: an unpaid invoice is VOID with nothing due, its open payment CANCELLED and its checkout closed; voiding again changes nothing; it takes no payment afterwards', async () => {
      const scope = f.scope;
      const { invoice } = await create(scope, { customerReference: 'void-1' });
      const open = await pay(scope, invoice.id, 100000);
      const voided = toInvoiceDto(await invoices.void(scope, invoice.id));
      expect(voided).toMatchObject({ status: 'VOID', amountDueMinor: 0 });
      expect(voided.payments).toEqual([
        expect.objectContaining({ id: open.id, status: 'CANCELLED' }),
      ]);
      const session = await f.c.db.query(
        `SELECT s.status FROM sandbox_sessions s JOIN payments p ON p.gateway_session_id = s.session_id WHERE p.id = $1`,
        [open.id],
      );
      expect(session.rows).toEqual([{ status: 'CLOSED' }]);
      const types = async () =>
        (await eventsOf(scope.appId))
          .filter((e) => e.data.invoice_id === invoice.id || e.data.payment_id === open.id)
          .map((e) => e.type);
      expect(await types()).toEqual(['invoice.issued', 'payment.cancelled', 'invoice.voided']);
      expect((await invoices.void(scope, invoice.id)).invoice.status).toBe('VOID');
      expect(await types()).toEqual(['invoice.issued', 'payment.cancelled', 'invoice.voided']);
      expect(await refusal(pay(scope, invoice.id, 1000))).toMatchObject({ code: 'INVALID_STATE' });
    });
  });

  describe('templates', () => {
    it('one per app and mode: a TEST template never changes what a LIVE invoice’s pay page shows; a put replaces the whole template', async () => {
      const templates = f.get(InvoiceTemplatesService);
      const appId = await newApp();
      const live: TenantScope = { appId, mode: 'LIVE' };
      expect(await templates.get(test(appId))).toBeNull();
      expect(
        await templates.put(test(appId), {
          companyName: 'Dhaka Books',
          accentColor: '#aa3300',
          footerNote: 'Thanks!',
          logoUrl: 'https://cdn.example.com/logo.png',
        }),
      ).toMatchObject({
        companyName: 'Dhaka Books',
        accentColor: '#aa3300',
        footerNote: 'Thanks!',
      });
      expect(await templates.get(live)).toBeNull();
      await templates.put(live, { companyName: 'Real Shop' });
      const liveInvoice = await create(live, { customerReference: 'tpl-live' });
      const page = await invoices.payPageOf(liveInvoice.payableUrl.split('/pay/')[1]);
      expect(page?.template).toMatchObject({ mode: 'LIVE', companyName: 'Real Shop' });
      expect((await templates.get(test(appId)))?.companyName).toBe('Dhaka Books');
      const replaced = await templates.put(test(appId), { companyName: 'Only name' });
      expect(replaced).toMatchObject({
        companyName: 'Only name',
        footerNote: null,
        accentColor: null,
        logoUrl: null,
      });
      expect(await templates.get(live)).toMatchObject({ companyName: 'Real Shop' });
    });

    it('the template migration copies an app-wide template to both modes', async () => {
      const url = await createTestDatabase('tplmig');
      const c = new Client({ connectionString: url });
      await c.connect();
      try {
        const q = { query: (sql: string) => c.query(sql) };
        const migration = new TemplatePerMode1795350000000();
        await migration.down(q as never);
        const appId = (await c.query(`INSERT INTO apps (name) VALUES ('Tpl') RETURNING id`)).rows[0]
          .id;
        await c.query(
          `INSERT INTO invoice_templates (app_id, company_name) VALUES ($1, 'Shared')`,
          [appId],
        );
        await migration.up(q as never);
        const rows = await c.query(
          'SELECT mode, company_name FROM invoice_templates WHERE app_id = $1 ORDER BY mode',
          [appId],
        );
        expect(rows.rows).toEqual([
          { mode: 'TEST', company_name: 'Shared' },
          { mode: 'LIVE', company_name: 'Shared' },
        ]);
      } finally {
        await c.end();
      }
    });
  });
});
