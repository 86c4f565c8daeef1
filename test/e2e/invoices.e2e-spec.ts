import { Client } from 'pg';

import { TemplatePerMode1795350000000 } from '../../migrations/1795350000000-TemplatePerMode';
import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  superAdminToken,
} from '../support/factories';
import { createInvoice, createPayment, eventsOf, settle } from '../support/payments';
import { createTestApp, createTestDatabase, TestApp } from '../support/test-app';

describe('invoices', () => {
  let t: TestApp;
  let app: CreatedApp;
  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t, 'Invoice Shop');
    // Read in English when nothing chose a language: the app's defaultLanguage (bn unless set)
    // is the pages' fallback, tested in pay-page.e2e-spec.
    const english = await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/settings`)
      .set(bearer(await superAdminToken(t)))
      .send({ defaultLanguage: 'en' });
    expect(english.status).toBe(200);
  });
  afterAll(() => t.close());

  it('computes totals, defaults dueDate to 7 days after issue and emits invoice.issued', async () => {
    t.clock.freeze(new Date('2026-11-22T12:00:00.000Z'));
    try {
      const inv = await createInvoice(t, app.TEST, {
        customerReference: 'inv-cust',
        customerName: 'Rahim',
        customerEmail: 'rahim@example.com',
        lineItems: [
          { description: 'Plan', qty: 3, unitAmountMinor: 10050 },
          { description: 'Setup', qty: 1, unitAmountMinor: 2500 },
        ],
        metadata: { orderId: 'A1' },
      });
      expect(inv).toMatchObject({
        status: 'ISSUED',
        mode: 'TEST',
        applicationId: app.id,
        applicationName: 'Invoice Shop',
        customerReference: 'inv-cust',
        customerName: 'Rahim',
        totalMinor: 32650,
        amountPaidMinor: 0,
        amountDueMinor: 32650,
        currency: 'BDT',
        dueDate: '2026-11-29',
        issuedAt: '2026-11-22T12:00:00.000Z',
        payments: [],
        metadata: { orderId: 'A1' },
      });
      expect(inv.lineItems.map((l: { lineTotalMinor: number }) => l.lineTotalMinor)).toEqual([
        30150, 2500,
      ]);
      expect(inv.payableUrl).toMatch(new RegExp(`^${t.baseUrl}/pay/[A-Za-z0-9_-]{30,}$`));
      const issued = (await eventsOf(t, app.id, 'invoice.')).filter(
        (e) => e.data.invoice_id === inv.id,
      );
      expect(issued.map((e) => e.type)).toEqual(['invoice.issued']);
      expect(issued[0].data).toMatchObject({
        status: 'issued',
        number: inv.number,
        total_minor: 32650,
        customer_reference: 'inv-cust',
      });
    } finally {
      t.clock.reset();
    }
  });

  it.each([
    ['no line items', { lineItems: [] }],
    [
      '101 line items',
      {
        lineItems: Array.from({ length: 101 }, () => ({
          description: 'x',
          qty: 1,
          unitAmountMinor: 100,
        })),
      },
    ],
    ['qty 0', { lineItems: [{ description: 'x', qty: 0, unitAmountMinor: 100 }] }],
    ['unitAmountMinor 0', { lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 0 }] }],
    ['a float amount', { lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 10.5 }] }],
    [
      'a total beyond 2^53-1',
      { lineItems: [{ description: 'x', qty: 3, unitAmountMinor: 4_000_000_000_000_000 }] },
    ],
    ['a dueDate in the past', { dueDate: '2020-01-01' }],
    ['a malformed dueDate', { dueDate: '22/11/2026' }],
    ['an explicit null dueDate', { dueDate: null }],
    [
      'a null line description',
      { lineItems: [{ description: null, qty: 1, unitAmountMinor: 100 }] },
    ],
    [
      'an unknown field in a line',
      { lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 100, tax: 1 }] },
    ],
    ['metadata over 8 KiB of JSON (as on payments)', { metadata: { note: 'x'.repeat(8200) } }],
  ])('refuses %s with 400 and writes nothing', async (_label, patch) => {
    const before = await t.db.query('SELECT count(*)::int AS n FROM invoices');
    const res = await t
      .http()
      .post('/api/v1/invoices')
      .set(asApp(app.TEST))
      .send({
        customerReference: 'bad',
        lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 100 }],
        ...patch,
      });
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(res.body.meta.details.length).toBeGreaterThan(0);
    expect((await t.db.query('SELECT count(*)::int AS n FROM invoices')).rows[0].n).toBe(
      before.rows[0].n,
    );
  });

  it('refuses a total above the app maximum with 422 (it could not be paid on the pay page) and writes nothing', async () => {
    const before = (
      await t.db.query('SELECT count(*)::int AS n FROM invoices WHERE app_id = $1', [app.id])
    ).rows[0].n;
    const res = await t
      .http()
      .post('/api/v1/invoices')
      .set(asApp(app.TEST))
      .send({
        customerReference: 'big',
        lineItems: [{ description: 'x', qty: 2, unitAmountMinor: 25_000_001 }],
      });
    expect(res.status).toBe(422);
    expect(res.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
    expect(
      (await t.db.query('SELECT count(*)::int AS n FROM invoices WHERE app_id = $1', [app.id]))
        .rows[0].n,
    ).toBe(before);
    const exact = await t
      .http()
      .post('/api/v1/invoices')
      .set(asApp(app.TEST))
      .send({
        customerReference: 'big',
        lineItems: [{ description: 'x', qty: 2, unitAmountMinor: 25_000_000 }],
      });
    expect(exact.status).toBe(201);
  });

  it('refuses a currency other than BDT', async () => {
    const res = await t
      .http()
      .post('/api/v1/invoices')
      .set(asApp(app.TEST))
      .send({
        customerReference: 'c',
        currency: 'EUR',
        lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 100 }],
      });
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('UNSUPPORTED_CURRENCY');
  });

  it('numbers invoices gaplessly per app and mode, also under concurrent creates', async () => {
    const fresh = await createApp(t);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => createInvoice(t, fresh.TEST)),
    );
    const numbers = results.map((r) => r.number).sort();
    expect(numbers).toEqual(
      Array.from({ length: 20 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`),
    );
    const live = await createInvoice(t, fresh.LIVE);
    expect(live.number).toBe('INV-000001');
    const other = await createApp(t);
    expect((await createInvoice(t, other.TEST)).number).toBe('INV-000001');
  });

  it('keeps numbers gapless when a create fails after taking its number (with or without Idempotency-Key)', async () => {
    const fresh = await createApp(t);
    // A database failure after the counter moved (numbers are taken last, just
    // before the invoice.issued event is recorded): recording this event raises.
    await t.db.query(`CREATE FUNCTION test_explode_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.type = 'invoice.issued' AND NEW.data::text LIKE '%"explode-customer"%'
        THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`);
    await t.db.query(`CREATE TRIGGER test_explode_event BEFORE INSERT ON events
      FOR EACH ROW EXECUTE FUNCTION test_explode_event()`);
    try {
      const first = await createInvoice(t, fresh.TEST);
      for (const key of [undefined, 'explode-1']) {
        const req = t.http().post('/api/v1/invoices').set(asApp(fresh.TEST));
        if (key) req.set('Idempotency-Key', key);
        const res = await req.send({
          customerReference: 'explode-customer',
          lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 100 }],
        });
        expect(res.status).toBe(500);
      }
      const next = await createInvoice(t, fresh.TEST);
      expect([first.number, next.number]).toEqual(['INV-000001', 'INV-000002']);
      const events = await t.db.query(
        `SELECT count(*)::int AS n FROM events WHERE app_id = $1 AND type = 'invoice.issued'`,
        [fresh.id],
      );
      expect(events.rows[0].n).toBe(2);
      const rows = await t.db.query(
        `SELECT count(*)::int AS n, count(number)::int AS numbered FROM invoices WHERE app_id = $1`,
        [fresh.id],
      );
      expect(rows.rows[0]).toEqual({ n: 2, numbered: 2 });
    } finally {
      await t.db.query('DROP TRIGGER test_explode_event ON events');
      await t.db.query('DROP FUNCTION test_explode_event()');
    }
  });

  it('pads numbers to six digits and grows past them instead of truncating', async () => {
    const fresh = await createApp(t);
    expect((await createInvoice(t, fresh.TEST)).number).toBe('INV-000001');
    await t.db.query(
      `UPDATE invoice_counters SET last_number = 999998 WHERE app_id = $1 AND mode = 'TEST'`,
      [fresh.id],
    );
    expect((await createInvoice(t, fresh.TEST)).number).toBe('INV-999999');
    expect((await createInvoice(t, fresh.TEST)).number).toBe('INV-1000000');
    await t.db.query(
      `UPDATE invoice_counters SET last_number = 12345677 WHERE app_id = $1 AND mode = 'TEST'`,
      [fresh.id],
    );
    expect((await createInvoice(t, fresh.TEST)).number).toBe('INV-12345678');
  });

  it('never commits an invoice without its number (a deferred check at commit)', async () => {
    const fresh = await createApp(t);
    const c = await t.db.connect();
    try {
      const customer = await c.query(
        `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'TEST', 'unnumbered') RETURNING id`,
        [fresh.id],
      );
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO invoices (app_id, mode, status, customer_id, total_minor, amount_paid_minor, currency, due_date, issued_at, pay_token)
         VALUES ($1, 'TEST', 'ISSUED', $2, 100, 0, 'BDT', current_date, now(), 'tok-unnumbered-1')`,
        [fresh.id, customer.rows[0].id],
      );
      await expect(c.query('COMMIT')).rejects.toMatchObject({ code: '23502' });
    } finally {
      c.release();
    }
    const rows = await t.db.query('SELECT count(*)::int AS n FROM invoices WHERE app_id = $1', [
      fresh.id,
    ]);
    expect(rows.rows[0].n).toBe(0);
  });

  it('follows its payments: ISSUED -> PARTIALLY_PAID -> PAID with events', async () => {
    const inv = await createInvoice(t, app.TEST, {
      lineItems: [{ description: 'Big', qty: 1, unitAmountMinor: 300000 }],
    });
    const tooMuch = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 300001, customerReference: 'cust-1', invoiceId: inv.id });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
    const part = await createPayment(t, app.TEST, { amountMinor: 100000, invoiceId: inv.id });
    await settle(t, app.TEST, part.id);
    let now = (await t.http().get(`/api/v1/invoices/${inv.id}`).set(asApp(app.TEST))).body.data;
    expect(now).toMatchObject({
      status: 'PARTIALLY_PAID',
      amountPaidMinor: 100000,
      amountDueMinor: 200000,
    });
    const rest = await createPayment(t, app.TEST, { amountMinor: 200000, invoiceId: inv.id });
    await settle(t, app.TEST, rest.id);
    now = (await t.http().get(`/api/v1/invoices/${inv.id}`).set(asApp(app.TEST))).body.data;
    expect(now).toMatchObject({ status: 'PAID', amountPaidMinor: 300000, amountDueMinor: 0 });
    expect(now.payments.map((p: { id: number; status: string }) => [p.id, p.status])).toEqual([
      [part.id, 'SUCCEEDED'],
      [rest.id, 'SUCCEEDED'],
    ]);
    const events = (await eventsOf(t, app.id, 'invoice.')).filter(
      (e) => e.data.invoice_id === inv.id,
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
    const payAgain = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 1000, customerReference: 'cust-1', invoiceId: inv.id });
    expect(payAgain.status).toBe(409);
    expect(
      (await t.http().post(`/api/v1/invoices/${inv.id}/void`).set(asApp(app.TEST))).status,
    ).toBe(409);
  });

  it('voids an unpaid invoice, cancelling its open payment, and refuses payments afterwards', async () => {
    const inv = await createInvoice(t, app.TEST);
    const open = await createPayment(t, app.TEST, { amountMinor: 100000, invoiceId: inv.id });
    const res = await t.http().post(`/api/v1/invoices/${inv.id}/void`).set(asApp(app.TEST));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'VOID', amountDueMinor: 0 });
    expect(res.body.data.payments[0]).toMatchObject({ id: open.id, status: 'CANCELLED' });
    const types = (await eventsOf(t, app.id))
      .filter((e) => e.data.invoice_id === inv.id || e.data.payment_id === open.id)
      .map((e) => e.type);
    expect(types).toEqual(['invoice.issued', 'payment.cancelled', 'invoice.voided']);
    const again = await t.http().post(`/api/v1/invoices/${inv.id}/void`).set(asApp(app.TEST));
    expect(again.status).toBe(200);
    expect(
      (await eventsOf(t, app.id, 'invoice.voided')).filter((e) => e.data.invoice_id === inv.id),
    ).toHaveLength(1);
    const pay = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 1000, customerReference: 'cust-1', invoiceId: inv.id });
    expect(pay.body.meta.errorCode).toBe('INVALID_STATE');
    const page = await t.http().get(new URL(inv.payableUrl).pathname);
    expect(page.text).toContain('voided');
    expect(page.text).not.toContain('id="pay-button"');
  });

  it('keeps invoices inside their app and mode, and lists with filters', async () => {
    const other = await createApp(t);
    const inv = await createInvoice(t, other.TEST, { customerReference: 'list-a' });
    await createInvoice(t, other.TEST, { customerReference: 'list-b' });
    for (const creds of [other.LIVE, app.TEST]) {
      expect((await t.http().get(`/api/v1/invoices/${inv.id}`).set(asApp(creds))).status).toBe(404);
      expect(
        (await t.http().post(`/api/v1/invoices/${inv.id}/void`).set(asApp(creds))).status,
      ).toBe(404);
      const wrongInvoice = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(creds))
        .send({ amountMinor: 1000, customerReference: 'x', invoiceId: inv.id });
      expect(wrongInvoice.status).toBe(404);
    }
    const list = await t
      .http()
      .get('/api/v1/invoices?customerReference=list-a')
      .set(asApp(other.TEST));
    expect(list.body.data.map((i: { id: number }) => i.id)).toEqual([inv.id]);
    const all = await t
      .http()
      .get('/api/v1/invoices?size=1&sortBy=number&order=asc')
      .set(asApp(other.TEST));
    expect(all.body.pagination).toEqual({ page: 0, size: 1, totalElements: 2, totalPages: 2 });
    expect(all.body.data[0].number).toBe('INV-000001');
    // Lists leave line items and payments to the single read.
    expect(all.body.data[0]).not.toHaveProperty('lineItems');
    expect(all.body.data[0]).not.toHaveProperty('payments');
    expect(all.body.data[0].totalMinor).toBeGreaterThan(0);
    expect((await t.http().get('/api/v1/invoices').set(asApp(other.LIVE))).body.data).toEqual([]);
    expect(
      (await t.http().get('/api/v1/invoices?sortBy=secret').set(asApp(other.TEST))).status,
    ).toBe(400);
  });

  it('stores one template per app and mode: a TEST key never changes what LIVE customers see', async () => {
    const fresh = await createApp(t);
    const empty = await t.http().get('/api/v1/invoices/template').set(asApp(fresh.TEST));
    expect(empty.body.data).toMatchObject({
      companyName: null,
      accentColor: null,
      createdAt: null,
    });
    const put = await t.http().put('/api/v1/invoices/template').set(asApp(fresh.TEST)).send({
      companyName: 'Dhaka Books',
      accentColor: '#aa3300',
      footerNote: 'Thanks!',
      logoUrl: 'https://cdn.example.com/logo.png',
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ companyName: 'Dhaka Books', accentColor: '#aa3300' });
    const viaLive = await t.http().get('/api/v1/invoices/template').set(asApp(fresh.LIVE));
    expect(viaLive.body.data.companyName).toBeNull();
    // A LIVE invoice's pay page shows the LIVE template, not the TEST one.
    await t
      .http()
      .put('/api/v1/invoices/template')
      .set(asApp(fresh.LIVE))
      .send({ companyName: 'Real Shop' });
    const live = await createInvoice(t, fresh.LIVE, { customerReference: 'tpl-live' });
    const page = await t.http().get(new URL(live.payableUrl).pathname);
    expect(page.text).toContain('Real Shop');
    expect(page.text).not.toContain('Dhaka Books');
    const bad = await t
      .http()
      .put('/api/v1/invoices/template')
      .set(asApp(fresh.TEST))
      .send({ accentColor: 'red;background:url(x)' });
    expect(bad.status).toBe(400);
    const replaced = await t
      .http()
      .put('/api/v1/invoices/template')
      .set(asApp(fresh.TEST))
      .send({ companyName: 'Only name' });
    expect(replaced.body.data).toMatchObject({ companyName: 'Only name', footerNote: null });
  });

  it('lets admins with invoices:read search across apps with every filter', async () => {
    const shop = await createApp(t, 'Search Shop');
    const a1 = await createInvoice(t, shop.TEST, { customerReference: 'srch' });
    const a2 = await createInvoice(t, shop.TEST, { customerReference: 'srch' });
    const l1 = await createInvoice(t, shop.LIVE, { customerReference: 'srch' });
    await t.http().post(`/api/v1/invoices/${a2.id}/void`).set(asApp(shop.TEST));
    const reader = await adminWith(t, ['invoices:read']);
    const q = (qs: string) =>
      t.http().get(`/api/v1/admin/invoices?${qs}`).set(bearer(reader.token));
    const byApp = await q(`applicationId=${shop.id}&sortBy=id&order=asc`);
    expect(byApp.status).toBe(200);
    expect(byApp.body.data.map((i: { id: number }) => i.id)).toEqual([a1.id, a2.id, l1.id]);
    expect(byApp.body.data[0]).toMatchObject({
      applicationName: 'Search Shop',
      customerExternalId: 'srch',
      mode: 'TEST',
      number: 'INV-000001',
    });
    expect(
      (await q(`applicationId=${shop.id}&mode=LIVE`)).body.data.map((i: { id: number }) => i.id),
    ).toEqual([l1.id]);
    expect(
      (await q(`applicationId=${shop.id}&status=VOID`)).body.data.map((i: { id: number }) => i.id),
    ).toEqual([a2.id]);
    expect(
      (await q(`applicationId=${shop.id}&mode=TEST&number=INV-000002`)).body.data.map(
        (i: { id: number }) => i.id,
      ),
    ).toEqual([a2.id]);
    const custId = byApp.body.data[0].customerRefId;
    expect((await q(`customerRefId=${custId}`)).body.data).toHaveLength(2);
    const today = new Date().toISOString().slice(0, 10);
    expect((await q(`applicationId=${shop.id}&from=${today}&to=${today}`)).body.data).toHaveLength(
      3,
    );
    expect((await q(`applicationId=${shop.id}&to=2020-01-01`)).body.data).toHaveLength(0);
    expect((await q(`applicationId=${shop.id}&paginate=false`)).body.pagination.totalElements).toBe(
      3,
    );
    expect((await q('size=101')).status).toBe(400);
    expect((await q('mode=SANDBOX')).status).toBe(400);
    const noPerm = await adminWith(t, ['apps:read']);
    const denied = await t.http().get('/api/v1/admin/invoices').set(bearer(noPerm.token));
    expect(denied.status).toBe(403);
    expect(denied.body.meta.errorCode).toBe('PERMISSION_DENIED');
    expect(
      (
        await t
          .http()
          .get('/api/v1/admin/invoices')
          .set(bearer(await superAdminToken(t)))
      ).status,
    ).toBe(200);
  });

  it('admin search: from/to must be a calendar date or an ISO date-time with a zone (400, never a 500)', async () => {
    const reader = await adminWith(t, ['invoices:read']);
    const q = (qs: string) =>
      t.http().get(`/api/v1/admin/invoices?${qs}`).set(bearer(reader.token));
    for (const bad of [
      'to=20240101',
      'from=2024-W01',
      'to=2024-001',
      'from=2024-02-30',
      'to=2024-01-01T10:00',
    ]) {
      const res = await q(bad);
      expect([bad, res.status]).toEqual([bad, 400]);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    }
    for (const good of [
      'from=2024-02-29',
      'to=2024-01-01T10:00:00Z',
      'from=2024-01-01T10:00:00.123%2B06:00',
    ]) {
      expect([good, (await q(good)).status]).toEqual([good, 200]);
    }
  });

  it('replays an idempotent invoice create without using a second number', async () => {
    const fresh = await createApp(t);
    const send = () =>
      t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(fresh.TEST))
        .set('Idempotency-Key', 'inv-1')
        .send({
          customerReference: 'c',
          lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 5000 }],
        });
    const first = await send();
    const second = await send();
    expect(second.text).toBe(first.text);
    expect((await createInvoice(t, fresh.TEST)).number).toBe('INV-000002');
    expect(await eventsOf(t, fresh.id, 'invoice.issued')).toHaveLength(2);
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
      await c.query(`INSERT INTO invoice_templates (app_id, company_name) VALUES ($1, 'Shared')`, [
        appId,
      ]);
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
