import { appFixture } from '../support/app-fixture';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { createPayment, eventsOf, expire, settle } from '../support/payments';
import { TestApp } from '../support/test-app';

describe('payments', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture({ balancedLedger: true });
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  it('creates a PENDING payment with a sandbox checkout and expiresAt from the app setting', async () => {
    t.clock.freeze(new Date('2026-11-22T10:00:00.000Z'));
    try {
      const p = await createPayment(t, app.TEST, {
        amountMinor: 150000,
        customerReference: 'alice',
        description: 'Order 7',
        metadata: { order: 7 },
      });
      expect(p).toMatchObject({
        status: 'PENDING',
        amountMinor: 150000,
        currency: 'BDT',
        gateway: 'sandbox',
        mode: 'TEST',
        applicationId: app.id,
        invoiceId: null,
        metadata: { order: 7 },
        expiresAt: '2026-11-22T10:30:00.000Z',
      });
      expect(p.reference).toMatch(/^pay_/);
      expect(p.checkoutUrl).toBe(
        `${t.baseUrl}/sandbox/checkout/${new URL(p.checkoutUrl).pathname.split('/').pop()}`,
      );
    } finally {
      t.clock.reset();
    }
  });

  it('creates one customer per reference, and lists its payments', async () => {
    await createPayment(t, app.TEST, { customerReference: 'bob' });
    await createPayment(t, app.TEST, { customerReference: 'bob', customerName: 'Bob' });
    const rows = await t.db.query(
      `SELECT name FROM customers WHERE app_id = $1 AND mode = 'TEST' AND external_id = 'bob'`,
      [app.id],
    );
    expect(rows.rows).toEqual([{ name: 'Bob' }]);
    const list = await t.http().get('/api/v1/customers/bob/payments').set(asApp(app.TEST));
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.pagination).toMatchObject({ totalElements: 2, page: 0 });
    expect((await t.http().get('/api/v1/customers/bob/payments').set(asApp(app.LIVE))).status).toBe(
      404,
    );
    expect(
      (await t.http().get('/api/v1/customers/nobody/payments').set(asApp(app.TEST))).body.meta
        .errorCode,
    ).toBe('RESOURCE_NOT_FOUND');
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

  it('checks return URLs against the app allowlist (empty list: https only)', async () => {
    const http = await t.http().post('/api/v1/payments').set(asApp(app.TEST)).send({
      amountMinor: 150000,
      customerReference: 'c',
      successUrl: 'http://shop.example.com/ok',
    });
    expect(http.status).toBe(400);
    expect(http.body.meta.errorCode).toBe('REDIRECT_URL_NOT_ALLOWED');
    await createPayment(t, app.TEST, { successUrl: 'https://shop.example.com/ok' });

    const other = await createApp(t);
    const patch = await t
      .http()
      .patch(`/api/v1/admin/apps/${other.id}/settings`)
      .set(bearer(await superAdminToken(t)))
      .send({ returnUrlAllowlist: 'https://shop.example.com, https://pay.example.org:8443' });
    expect(patch.status).toBe(200);
    const bad = await t.http().post('/api/v1/payments').set(asApp(other.TEST)).send({
      amountMinor: 150000,
      customerReference: 'c',
      cancelUrl: 'https://evil.example.net/x',
    });
    expect(bad.body.meta.errorCode).toBe('REDIRECT_URL_NOT_ALLOWED');
    const good = await createPayment(t, other.TEST, {
      successUrl: 'https://pay.example.org:8443/done',
    });
    expect(good.redirectUrl).toBe('https://pay.example.org:8443/done');
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

  it('never lets the sandbox take a LIVE payment', async () => {
    for (const body of [{}, { gateway: 'sandbox' }]) {
      const res = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.LIVE))
        .send({ amountMinor: 150000, customerReference: 'c', ...body });
      expect(res.status).toBe(400);
      expect(res.body.meta.details).toEqual([
        { field: 'gateway', message: expect.stringContaining('TEST mode only') },
      ]);
    }
    expect(
      (
        await t.db.query(
          `SELECT count(*)::int AS n FROM payments WHERE app_id = $1 AND mode = 'LIVE'`,
          [app.id],
        )
      ).rows[0].n,
    ).toBe(0);
  });

  it('cancels a pending payment once; a second cancel is a no-op; settling it afterwards is refused and emits nothing', async () => {
    const p = await createPayment(t, app.TEST);
    const first = await t.http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
    expect(first.status).toBe(200);
    expect(first.body.data.status).toBe('CANCELLED');
    const again = await t.http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
    expect(again.status).toBe(200);
    const late = await settle(t, app.TEST, p.id);
    expect(late.status).toBe(409);
    expect(late.body.meta.errorCode).toBe('INVALID_STATE');
    const events = (await eventsOf(t, app.id, 'payment.')).filter(
      (e) => e.data.payment_id === p.id,
    );
    expect(events.map((e) => e.type)).toEqual(['payment.cancelled']);
    expect(events[0].data).toMatchObject({ status: 'cancelled', previous_status: 'pending' });
    const session = await t.db.query(
      `SELECT s.status FROM sandbox_sessions s JOIN payments p ON p.gateway_session_id = s.session_id WHERE p.id = $1`,
      [p.id],
    );
    // An explicit cancel closes the checkout: the customer can no longer pay there.
    expect(session.rows[0].status).toBe('CLOSED');
  });

  it('emits exactly one payment.succeeded when the same payment is settled twice concurrently', async () => {
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
    expect(events[0].data).toMatchObject({
      payment_id: p.id,
      status: 'succeeded',
      previous_status: 'pending',
      amount_minor: 50000,
      currency: 'BDT',
      customer_reference: 'cust-1',
    });
    const again = await settle(t, app.TEST, p.id);
    expect(again.status).toBe(200);
    expect(
      (await eventsOf(t, app.id, 'payment.')).filter((e) => e.data.payment_id === p.id),
    ).toHaveLength(1);
  });

  it('revives an expired payment when it is settled late: payment.expired then payment.succeeded (previous_status expired)', async () => {
    const p = await createPayment(t, app.TEST);
    const expired = await expire(t, app.TEST, p.id);
    expect(expired.status).toBe(200);
    expect(expired.body.data.status).toBe('EXPIRED');
    const revived = await settle(t, app.TEST, p.id);
    expect(revived.body.data.status).toBe('SUCCEEDED');
    const events = (await eventsOf(t, app.id, 'payment.')).filter(
      (e) => e.data.payment_id === p.id,
    );
    expect(events.map((e) => [e.type, e.data.previous_status])).toEqual([
      ['payment.expired', 'pending'],
      ['payment.succeeded', 'expired'],
    ]);
    // a stale expiry after success changes nothing
    expect((await expire(t, app.TEST, p.id)).body.data.status).toBe('SUCCEEDED');
    expect(
      (await eventsOf(t, app.id, 'payment.')).filter((e) => e.data.payment_id === p.id),
    ).toHaveLength(2);
  });

  it('records a failed payment as FAILED with payment.failed and refuses to cancel it', async () => {
    const p = await createPayment(t, app.TEST);
    expect((await settle(t, app.TEST, p.id, 'failed')).body.data.status).toBe('FAILED');
    const cancel = await t.http().post(`/api/v1/payments/${p.id}/cancel`).set(asApp(app.TEST));
    expect(cancel.status).toBe(409);
    expect(cancel.body.meta.errorCode).toBe('INVALID_STATE');
    const types = (await eventsOf(t, app.id, 'payment.'))
      .filter((e) => e.data.payment_id === p.id)
      .map((e) => e.type);
    expect(types).toEqual(['payment.failed']);
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

  it('ignores a gateway notification the gateway does not confirm, and confirms a genuine one', async () => {
    const p = await createPayment(t, app.TEST);
    const session = new URL(p.checkoutUrl).pathname.split('/').pop()!;
    const forged = await t
      .http()
      .post('/api/v1/gateways/sandbox/ipn')
      .send({ session_id: session, status: 'VALID' });
    expect(forged.status).toBe(200);
    expect(
      (await t.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST))).body.data.status,
    ).toBe('PENDING');
    expect(
      (
        await t
          .http()
          .post('/api/v1/gateways/sandbox/ipn')
          .send({ session_id: 'sbx_doesnotexist000000' })
      ).status,
    ).toBe(404);
    // the customer pays on the checkout but never comes back; the IPN arrives
    const paid = await t
      .http()
      .post(`/sandbox/checkout/${session}`)
      .type('form')
      .send({ outcome: 'pay' });
    expect(paid.status).toBe(303);
    expect(
      (await t.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST))).body.data.status,
    ).toBe('PENDING');
    expect(
      (await t.http().post('/api/v1/gateways/sandbox/ipn').send({ session_id: session })).status,
    ).toBe(200);
    const after = (await t.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST))).body.data;
    expect(after).toMatchObject({ status: 'SUCCEEDED', paymentMethodBrand: 'SANDBOX' });
    expect(after.gatewayTxnId).toMatch(/^SBXTXN/);
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
