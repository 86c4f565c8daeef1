import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  superAdminToken,
} from '../support/factories';
import { createInvoice, createPayment, eventsOf, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The invoices' HTTP contract: statuses and envelopes of create, read, void,
 * list, template and admin search; validation 400s and the 422/409 codes;
 * the app and mode partition (404); lists with filters, sort and pages;
 * Idempotency-Key replays (also of a create that failed with a 500); the
 * pay page of a void invoice and of a LIVE template. The rules (totals and
 * line math, the app maximum, BDT only, gapless numbering, states and their
 * events, void, one template per app and mode, the template migration) are
 * proven as services in test/medium/invoices.medium-spec.ts.
 */
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

  it('POST /invoices answers 201 with the whole invoice in the envelope: its lines, amounts, customer, app name and a pay link at the public URL', async () => {
    const res = await t
      .http()
      .post('/api/v1/invoices')
      .set(asApp(app.TEST))
      .send({
        customerReference: 'inv-cust',
        customerName: 'Rahim',
        customerEmail: 'rahim@example.com',
        lineItems: [
          { description: 'Plan', qty: 3, unitAmountMinor: 10050 },
          { description: 'Setup', qty: 1, unitAmountMinor: 2500 },
        ],
        metadata: { orderId: 'A1' },
      });
    expect(res.status).toBe(201);
    expect(res.body.meta).toMatchObject({ success: true });
    const inv = res.body.data;
    expect(inv).toMatchObject({
      id: expect.any(Number),
      number: expect.stringMatching(/^INV-\d{6}$/),
      status: 'ISSUED',
      mode: 'TEST',
      applicationId: app.id,
      applicationName: 'Invoice Shop',
      customerReference: 'inv-cust',
      customerName: 'Rahim',
      customerEmail: 'rahim@example.com',
      totalMinor: 32650,
      amountPaidMinor: 0,
      amountDueMinor: 32650,
      currency: 'BDT',
      dueDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      issuedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      payments: [],
      metadata: { orderId: 'A1' },
    });
    expect(inv.lineItems).toEqual([
      {
        id: expect.any(Number),
        description: 'Plan',
        qty: 3,
        unitAmountMinor: 10050,
        lineTotalMinor: 30150,
      },
      {
        id: expect.any(Number),
        description: 'Setup',
        qty: 1,
        unitAmountMinor: 2500,
        lineTotalMinor: 2500,
      },
    ]);
    expect(inv.payableUrl).toMatch(new RegExp(`^${t.baseUrl}/pay/[A-Za-z0-9_-]{30,}$`));
    const read = await t.http().get(`/api/v1/invoices/${inv.id}`).set(asApp(app.TEST));
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(inv);
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

  // The rule (the maximum itself, nothing written, exactly the maximum issued): invoices.medium-spec.
  it('a total above the app maximum is 422 AMOUNT_OUT_OF_RANGE', async () => {
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
    expect(res.body.data).toBeNull();
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

  // Gapless numbers after a failed create without a key: invoices.medium-spec.
  it('a create with an Idempotency-Key that fails after taking its number answers 500, and the next create takes the next number', async () => {
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
      const res = await t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(fresh.TEST))
        .set('Idempotency-Key', 'explode-1')
        .send({
          customerReference: 'explode-customer',
          lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 100 }],
        });
      expect(res.status).toBe(500);
      expect(res.body.meta.errorCode).toBe('INTERNAL_ERROR');
      const next = await createInvoice(t, fresh.TEST);
      expect([first.number, next.number]).toEqual(['INV-000001', 'INV-000002']);
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

  it('paying an invoice over the API: more than is due is 422; once PAID, GET /invoices/{id} lists its payments, and paying or voiding it again is 409 INVALID_STATE', async () => {
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
    expect(tooMuch.body.meta.details).toEqual([
      { field: 'amountMinor', message: expect.stringContaining('300000 due') },
    ]);
    const all = await createPayment(t, app.TEST, { amountMinor: 300000, invoiceId: inv.id });
    expect((await settle(t, app.TEST, all.id)).status).toBe(200);
    const now = await t.http().get(`/api/v1/invoices/${inv.id}`).set(asApp(app.TEST));
    expect(now.status).toBe(200);
    expect(now.body.data).toMatchObject({
      status: 'PAID',
      amountPaidMinor: 300000,
      amountDueMinor: 0,
    });
    expect(now.body.data.payments).toEqual([
      expect.objectContaining({
        id: all.id,
        status: 'SUCCEEDED',
        amountMinor: 300000,
        invoiceId: inv.id,
      }),
    ]);
    const payAgain = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 1000, customerReference: 'cust-1', invoiceId: inv.id });
    expect(payAgain.status).toBe(409);
    expect(payAgain.body.meta.errorCode).toBe('INVALID_STATE');
    const voidPaid = await t.http().post(`/api/v1/invoices/${inv.id}/void`).set(asApp(app.TEST));
    expect(voidPaid.status).toBe(409);
    expect(voidPaid.body.meta.errorCode).toBe('INVALID_STATE');
  });

  it('POST /invoices/{id}/void answers 200 with the VOID invoice and its cancelled payment (again: 200); paying it is 409; its pay page says voided with no Pay button', async () => {
    const inv = await createInvoice(t, app.TEST);
    const open = await createPayment(t, app.TEST, { amountMinor: 100000, invoiceId: inv.id });
    const res = await t.http().post(`/api/v1/invoices/${inv.id}/void`).set(asApp(app.TEST));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: inv.id, status: 'VOID', amountDueMinor: 0 });
    expect(res.body.data.payments[0]).toMatchObject({ id: open.id, status: 'CANCELLED' });
    const again = await t.http().post(`/api/v1/invoices/${inv.id}/void`).set(asApp(app.TEST));
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe('VOID');
    const pay = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 1000, customerReference: 'cust-1', invoiceId: inv.id });
    expect(pay.status).toBe(409);
    expect(pay.body.meta.errorCode).toBe('INVALID_STATE');
    const page = await t.http().get(new URL(inv.payableUrl).pathname);
    expect(page.status).toBe(200);
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

  it('GET and PUT /invoices/template: nulls before any, 200 with the template after; a bad accentColor is 400; a LIVE invoice’s pay page shows the LIVE template', async () => {
    const fresh = await createApp(t);
    const empty = await t.http().get('/api/v1/invoices/template').set(asApp(fresh.TEST));
    expect(empty.status).toBe(200);
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
    expect(put.body.data).toMatchObject({
      companyName: 'Dhaka Books',
      accentColor: '#aa3300',
      footerNote: 'Thanks!',
      logoUrl: 'https://cdn.example.com/logo.png',
      createdAt: expect.any(String),
    });
    const read = await t.http().get('/api/v1/invoices/template').set(asApp(fresh.TEST));
    expect(read.body.data).toEqual(put.body.data);
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
    expect(bad.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(bad.body.meta.details).toEqual([expect.objectContaining({ field: 'accentColor' })]);
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
    // Days are Asia/Dhaka days (decisions section 20), on the creation time.
    const today = new Date(Date.now() + 6 * 3600_000).toISOString().slice(0, 10);
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
});
