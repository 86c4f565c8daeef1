import { appFixture } from '../support/app-fixture';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { createPayment, eventsOf, settle } from '../support/payments';
import { TestApp } from '../support/test-app';

/**
 * The payments' HTTP contract: statuses and envelopes of create, read, list,
 * cancel and the customer's payments; validation 400s and the 422/409
 * codes; the app and mode partition (404); digits-only path ids; the test
 * helpers' 403 for LIVE keys; Idempotency-Key replays; settles raced through
 * the API; the IPN route; the OpenAPI document. The rules (checkout and
 * deadline of a new payment, the app's amount range and return-URL
 * allowlist, the sandbox kept to TEST, cancel, fail, late capture of an
 * expired payment, one capture however often confirmed, notifications
 * believed only when the gateway confirms them, the payment.* events) are
 * proven as services in test/medium/payments.medium-spec.ts; customers in
 * test/medium/customers.medium-spec.ts.
 */
describe('payments', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture({ balancedLedger: true });
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  it('POST /payments answers 201 with the PENDING payment in the envelope, its checkout on the public URL; GET /payments/{id} reads the same', async () => {
    const res = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({
        amountMinor: 150000,
        customerReference: 'alice',
        description: 'Order 7',
        metadata: { order: 7 },
      });
    expect(res.status).toBe(201);
    expect(res.body.meta).toMatchObject({ success: true });
    const p = res.body.data;
    expect(p).toMatchObject({
      id: expect.any(Number),
      reference: expect.stringMatching(/^pay_/),
      status: 'PENDING',
      amountMinor: 150000,
      currency: 'BDT',
      gateway: 'sandbox',
      mode: 'TEST',
      applicationId: app.id,
      invoiceId: null,
      metadata: { order: 7 },
      expiresAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(p.checkoutUrl).toMatch(new RegExp(`^${t.baseUrl}/sandbox/checkout/sbx_[A-Za-z0-9_-]+$`));
    const read = await t.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST));
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ ...p, updatedAt: read.body.data.updatedAt });
  });

  it('GET /customers/{externalId}/payments lists the customer’s payments with pagination; 404 RESOURCE_NOT_FOUND in another mode or for an unknown reference', async () => {
    const first = await createPayment(t, app.TEST, { customerReference: 'bob' });
    const second = await createPayment(t, app.TEST, {
      customerReference: 'bob',
      customerName: 'Bob',
    });
    const list = await t.http().get('/api/v1/customers/bob/payments').set(asApp(app.TEST));
    expect(list.status).toBe(200);
    expect(
      list.body.data.map((p: { id: number }) => p.id).sort((a: number, b: number) => a - b),
    ).toEqual([first.id, second.id]);
    expect(list.body.pagination).toMatchObject({ totalElements: 2, page: 0 });
    for (const [creds, ref] of [
      [app.LIVE, 'bob'],
      [app.TEST, 'nobody'],
    ] as const) {
      const res = await t.http().get(`/api/v1/customers/${ref}/payments`).set(asApp(creds));
      expect(res.status).toBe(404);
      expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    }
  });

  it.each([
    ['below the app minimum', { amountMinor: 999 }, 422, 'AMOUNT_OUT_OF_RANGE'],
    ['above the app maximum', { amountMinor: 50_000_001 }, 422, 'AMOUNT_OUT_OF_RANGE'],
    ['a float', { amountMinor: 1000.5 }, 400, 'VALIDATION_FAILED'],
    ['a numeric string', { amountMinor: '150000' }, 400, 'VALIDATION_FAILED'],
    ['negative', { amountMinor: -5 }, 400, 'VALIDATION_FAILED'],
    ['another currency', { currency: 'USD' }, 400, 'UNSUPPORTED_CURRENCY'],
    ['an unknown field', { tip: 5 }, 400, 'VALIDATION_FAILED'],
    ['an unknown gateway', { gateway: 'paypal' }, 400, 'VALIDATION_FAILED'],
    ['a bad customerReference', { customerReference: 'has space' }, 400, 'VALIDATION_FAILED'],
    ['an explicit null invoiceId', { invoiceId: null }, 400, 'VALIDATION_FAILED'],
    ['a lone surrogate in metadata', { metadata: { note: 'x\uD800' } }, 400, 'VALIDATION_FAILED'],
    [
      'metadata nested 40 levels deep',
      { metadata: JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40)) },
      400,
      'VALIDATION_FAILED',
    ],
    ['an explicit null currency', { currency: null }, 400, 'VALIDATION_FAILED'],
    ['a NUL character', { description: 'a\u0000b' }, 400, 'VALIDATION_FAILED'],
  ])('refuses %s', async (_label, patch, status, code) => {
    const res = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 150000, customerReference: 'c', ...patch });
    expect(res.status).toBe(status);
    expect(res.body.meta.errorCode).toBe(code);
    expect(res.body.data).toBeNull();
  });

  it('refuses an amount beyond 2^53-1 sent as raw JSON', async () => {
    const res = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .set('Content-Type', 'application/json')
      .send('{"amountMinor": 9007199254740993, "customerReference": "c"}');
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(
      await t.db.query(`SELECT 1 FROM payments WHERE amount_minor > 9007199254740000`),
    ).toMatchObject({ rowCount: 0 });
  });

  // The allowlist's rule (https only without a list, origins with ports): payments.medium-spec.
  it('a return URL the allowlist refuses is 400 REDIRECT_URL_NOT_ALLOWED naming the field', async () => {
    const res = await t.http().post('/api/v1/payments').set(asApp(app.TEST)).send({
      amountMinor: 150000,
      customerReference: 'c',
      successUrl: 'http://shop.example.com/ok',
    });
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('REDIRECT_URL_NOT_ALLOWED');
    expect(res.body.meta.details).toEqual([expect.objectContaining({ field: 'successUrl' })]);
    expect(res.body.data).toBeNull();
  });

  it('keeps payments inside their app and mode', async () => {
    const p = await createPayment(t, app.TEST);
    const other = await createApp(t);
    for (const creds of [app.LIVE, other.TEST, other.LIVE]) {
      const res = await t.http().get(`/api/v1/payments/${p.id}`).set(asApp(creds));
      expect(res.status).toBe(404);
      expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
      expect(
        (await t.http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(creds))).status,
      ).toBe(404);
    }
    expect((await t.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST))).status).toBe(200);
    const list = await t.http().get('/api/v1/payments').set(asApp(app.LIVE));
    expect(list.body.data).toEqual([]);
  });

  it('a path id is digits only: 1e3, 0x.., 5.0 or " 5" are 400, never another spelling of a payment id', async () => {
    const p = await createPayment(t, app.TEST);
    const spellings = [`${p.id}.0`, `0x${p.id.toString(16)}`, `%20${p.id}`, `${p.id}e0`];
    for (const id of spellings) {
      const get = await t.http().get(`/api/v1/payments/${id}`).set(asApp(app.TEST));
      expect(get.status).toBe(400);
      expect(get.body.meta.details[0].field).toBe('id');
      const cancel = await t.http().post(`/api/v1/payments/${id}/cancel`).set(asApp(app.TEST));
      expect(cancel.status).toBe(400);
    }
    const row = (await t.db.query('SELECT status FROM payments WHERE id = $1', [p.id])).rows[0];
    expect(row.status).toBe('PENDING');
  });

  it('a LIVE key with no LIVE gateway is 400 naming gateway (the sandbox is TEST mode only)', async () => {
    const res = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.LIVE))
      .send({ amountMinor: 150000, customerReference: 'c', gateway: 'sandbox' });
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(res.body.meta.details).toEqual([
      { field: 'gateway', message: expect.stringContaining('TEST mode only') },
    ]);
  });

  it('POST /payments/{id}/cancel answers 200 CANCELLED, again 200; the settle helper is then 409 INVALID_STATE, and cancelling a FAILED payment is 409 INVALID_STATE', async () => {
    const p = await createPayment(t, app.TEST);
    const first = await t.http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ id: p.id, status: 'CANCELLED' });
    const again = await t.http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe('CANCELLED');
    const late = await settle(t, app.TEST, p.id);
    expect(late.status).toBe(409);
    expect(late.body.meta.errorCode).toBe('INVALID_STATE');
    const failed = await createPayment(t, app.TEST);
    const settled = await settle(t, app.TEST, failed.id, 'failed');
    expect(settled.status).toBe(200);
    expect(settled.body.data.status).toBe('FAILED');
    const cancel = await t.http().post(`/api/v1/payments/${failed.id}/cancel`).set(asApp(app.TEST));
    expect(cancel.status).toBe(409);
    expect(cancel.body.meta.errorCode).toBe('INVALID_STATE');
  });

  it('three settles of one payment raced through the API: each 200 SUCCEEDED, and exactly one payment.succeeded', async () => {
    const p = await createPayment(t, app.TEST);
    const results = await Promise.all([
      settle(t, app.TEST, p.id),
      settle(t, app.TEST, p.id),
      settle(t, app.TEST, p.id),
    ]);
    for (const r of results) {
      expect(r.status).toBe(200);
      expect(r.body.data.status).toBe('SUCCEEDED');
    }
    const events = (await eventsOf(t, app.id, 'payment.')).filter(
      (e) => e.data.payment_id === p.id,
    );
    expect(events.map((e) => e.type)).toEqual(['payment.succeeded']);
  });

  it('answers 403 TEST_MODE_ONLY to LIVE keys on test helpers, whatever the id', async () => {
    for (const path of [
      '/api/v1/test-helpers/payments/abc/settle',
      '/api/v1/test-helpers/payments/999999/expire',
    ]) {
      const res = await t.http().post(path).set(asApp(app.LIVE)).send({ outcome: 'succeeded' });
      expect(res.status).toBe(403);
      expect(res.body.meta.errorCode).toBe('TEST_MODE_ONLY');
    }
  });

  it('replays an idempotent payment create without opening a second checkout', async () => {
    const send = () =>
      t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .set('Idempotency-Key', 'pay-once')
        .send({ amountMinor: 70000, customerReference: 'idem' });
    const [a, b] = [await send(), await send()];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.text).toBe(a.text);
    const rows = await t.db.query(
      `SELECT count(*)::int AS n FROM payments p JOIN customers c ON c.id = p.customer_id WHERE c.external_id = 'idem'`,
    );
    expect(rows.rows[0].n).toBe(1);
  });

  it('POST /gateways/{gateway}/ipn answers 200 {received: true} to a notification of a known checkout (a genuine one settles the payment) and 404 to an unknown one', async () => {
    const p = await createPayment(t, app.TEST);
    const session = new URL(p.checkoutUrl).pathname.split('/').pop()!;
    const unknown = await t
      .http()
      .post('/api/v1/gateways/sandbox/ipn')
      .send({ session_id: 'sbx_doesnotexist000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    // the customer pays on the checkout but never comes back; the IPN arrives
    const paid = await t
      .http()
      .post(`/sandbox/checkout/${session}`)
      .type('form')
      .send({ outcome: 'pay' });
    expect(paid.status).toBe(303);
    const ipn = await t.http().post('/api/v1/gateways/sandbox/ipn').send({ session_id: session });
    expect(ipn.status).toBe(200);
    expect(ipn.body.data).toEqual({ received: true });
    expect(
      (await t.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST))).body.data.status,
    ).toBe('SUCCEEDED');
  });

  it('documents every money route and request field in Swagger, with the types and limits it enforces', async () => {
    const doc = (await t.http().get('/docs-json')).body;
    const routes: [string, string][] = [
      ['post', '/api/v1/payments'],
      ['get', '/api/v1/payments'],
      ['get', '/api/v1/payments/{id}'],
      ['post', '/api/v1/payments/{id}/cancel'],
      ['get', '/api/v1/customers/{externalId}/payments'],
      ['post', '/api/v1/gateways/{gateway}/ipn'],
      ['post', '/api/v1/invoices'],
      ['get', '/api/v1/invoices'],
      ['get', '/api/v1/invoices/{id}'],
      ['post', '/api/v1/invoices/{id}/void'],
      ['get', '/api/v1/invoices/template'],
      ['put', '/api/v1/invoices/template'],
      ['get', '/api/v1/admin/invoices'],
      ['post', '/api/v1/purchases'],
      ['post', '/api/v1/test-helpers/payments/{id}/settle'],
      ['post', '/api/v1/test-helpers/payments/{id}/expire'],
    ];
    for (const [method, path] of routes) {
      const op = doc.paths[path]?.[method];
      expect([method, path, Boolean(op?.summary)]).toEqual([method, path, true]);
      const ok = Object.entries(op.responses).find(([code]) => code.startsWith('2'));
      expect([path, ok?.[1]]).toEqual([
        path,
        expect.objectContaining({ content: expect.anything() }),
      ]);
      for (const code of ['400', '500'])
        expect([path, code, Boolean(op.responses[code])]).toEqual([path, code, true]);
      for (const param of op.parameters.filter((x: { in: string }) => x.in === 'path')) {
        if (param.name === 'id')
          expect([path, param.schema]).toEqual([
            path,
            expect.objectContaining({ type: 'integer' }),
          ]);
      }
    }
    const ipn = doc.paths['/api/v1/gateways/{gateway}/ipn'].post;
    expect(ipn.requestBody).toBeDefined();
    expect(ipn.responses['404']).toBeDefined();
    const schemas = doc.components.schemas;
    expect(schemas.IpnAckDto.properties.received.type).toBe('boolean');
    expect(schemas.PurchaseDto.properties.status.enum).toEqual([
      'ISSUED',
      'PARTIALLY_PAID',
      'PAID',
      'VOID',
    ]);
    const reference = expect.objectContaining({ pattern: expect.any(String), maxLength: 128 });
    const pay = schemas.CreatePaymentDto.properties;
    expect(pay.customerReference).toEqual(reference);
    expect(pay.invoiceId).toEqual(expect.objectContaining({ type: 'integer', minimum: 1 }));
    expect(pay.gateway).toEqual(expect.objectContaining({ maxLength: 40 }));
    for (const url of ['successUrl', 'failUrl', 'cancelUrl'])
      expect(pay[url]).toEqual(expect.objectContaining({ format: 'uri', maxLength: 2000 }));
    expect(pay.customerName).toEqual(expect.objectContaining({ minLength: 1, maxLength: 200 }));
    expect(pay.customerEmail).toEqual(expect.objectContaining({ format: 'email', maxLength: 320 }));
    expect(pay.customerPhone).toEqual(expect.objectContaining({ pattern: expect.any(String) }));
    const inv = schemas.CreateInvoiceDto.properties;
    expect(inv.customerReference).toEqual(reference);
    expect(inv.customerName).toEqual(expect.objectContaining({ maxLength: 200 }));
    expect(inv.customerEmail).toEqual(expect.objectContaining({ format: 'email' }));
    expect(inv.customerPhone).toEqual(expect.objectContaining({ pattern: expect.any(String) }));
    expect(schemas.LineItemInput.properties.description).toEqual(
      expect.objectContaining({ minLength: 1, maxLength: 500 }),
    );
    const template = schemas.InvoiceTemplateInput.properties;
    expect(template.logoUrl).toEqual(expect.objectContaining({ format: 'uri', maxLength: 2000 }));
    expect(template.accentColor).toEqual(expect.objectContaining({ pattern: expect.any(String) }));
    expect(template.companyName).toEqual(expect.objectContaining({ maxLength: 200 }));
    expect(template.footerNote).toEqual(expect.objectContaining({ maxLength: 2000 }));
    const buy = schemas.CreatePurchaseDto.properties;
    expect(buy.priceId).toEqual(expect.objectContaining({ type: 'integer', minimum: 1 }));
    expect(buy.customerReference).toEqual(reference);
    expect(buy.customerEmail).toEqual(expect.objectContaining({ format: 'email' }));
  });
});
