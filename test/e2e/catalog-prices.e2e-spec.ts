import { createPrice, createProduct, MONTHLY, ONE_TIME } from '../support/catalog-factories';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/**
 * Prices over HTTP: the contract of creating and deactivating them
 * (statuses, envelopes, validation 400s naming fields, BDT only, 409 on an
 * ARCHIVED product, Idempotency-Key replays, 404 across apps and modes).
 * The rules (DRAFT to ACTIVE with the first price in one transaction, the
 * RECURRING defaults, currency, ARCHIVED refusing prices, deactivation
 * idempotent on any product status and only through the price's own
 * product, terms that never change) are proven on the services in
 * test/medium/catalog.medium-spec.ts.
 */
describe('catalog: prices', () => {
  let t: TestApp;
  let app: CreatedApp;
  let other: CreatedApp;
  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    other = await createApp(t);
  });
  afterAll(() => t.close());

  const post = (productId: number, creds = app.TEST) =>
    t.http().post(`/api/v1/products/${productId}/prices`).set(asApp(creds));
  const productStatus = async (id: number) =>
    (await t.db.query('SELECT status FROM products WHERE id = $1', [id])).rows[0].status;
  const priceCount = async (id: number) =>
    (await t.db.query('SELECT count(*)::int AS n FROM prices WHERE product_id = $1', [id])).rows[0]
      .n;

  it('creating a price answers 201 with the price, which the product then shows', async () => {
    const product = await createProduct(t, app);
    const res = await post(product.id).send({ type: 'ONE_TIME', amountMinor: 150000 });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      productId: product.id,
      type: 'ONE_TIME',
      amountMinor: 150000,
      currency: 'BDT',
      interval: null,
      intervalCount: null,
      trialDays: null,
      active: true,
      createdAt: ISO,
    });
    const got = await t.http().get(`/api/v1/products/${product.id}`).set(asApp(app.TEST));
    expect(got.status).toBe(200);
    expect(got.body.data.prices).toEqual([res.body.data]);
  });

  it('accepts the largest safe amount, 2^53-1', async () => {
    const product = await createProduct(t, app);
    const res = await post(product.id)
      .set('Content-Type', 'application/json')
      .send('{"type":"ONE_TIME","amountMinor":9007199254740991}');
    expect(res.status).toBe(201);
    expect(res.text).toContain('"amountMinor":9007199254740991');
  });

  const invalid: [string, string | Record<string, unknown>, string][] = [
    ['a float amount', { type: 'ONE_TIME', amountMinor: 100.5 }, 'amountMinor'],
    ['a string amount', { type: 'ONE_TIME', amountMinor: '1000' }, 'amountMinor'],
    [
      'a 2^53 amount (raw JSON)',
      '{"type":"ONE_TIME","amountMinor":9007199254740992}',
      'amountMinor',
    ],
    ['a zero amount', { type: 'ONE_TIME', amountMinor: 0 }, 'amountMinor'],
    ['a negative amount', { type: 'ONE_TIME', amountMinor: -100 }, 'amountMinor'],
    ['a missing amount', { type: 'ONE_TIME' }, 'amountMinor'],
    ['a missing type', { amountMinor: 100 }, 'type'],
    ['an unknown type', { type: 'MONTHLY', amountMinor: 100 }, 'type'],
    [
      'RECURRING without interval',
      { type: 'RECURRING', amountMinor: 100, intervalCount: 1 },
      'interval',
    ],
    [
      'RECURRING without intervalCount',
      { type: 'RECURRING', amountMinor: 100, interval: 'WEEK' },
      'intervalCount',
    ],
    [
      'intervalCount 0',
      { type: 'RECURRING', amountMinor: 100, interval: 'WEEK', intervalCount: 0 },
      'intervalCount',
    ],
    [
      'a period over three years',
      { type: 'RECURRING', amountMinor: 100, interval: 'MONTH', intervalCount: 37 },
      'intervalCount',
    ],
    [
      'an unknown interval',
      { type: 'RECURRING', amountMinor: 100, interval: 'HOUR', intervalCount: 1 },
      'interval',
    ],
    [
      'trialDays 731',
      { type: 'RECURRING', amountMinor: 100, interval: 'DAY', intervalCount: 1, trialDays: 731 },
      'trialDays',
    ],
    [
      'trialDays -1',
      { type: 'RECURRING', amountMinor: 100, interval: 'DAY', intervalCount: 1, trialDays: -1 },
      'trialDays',
    ],
    [
      'ONE_TIME with interval',
      { type: 'ONE_TIME', amountMinor: 100, interval: 'MONTH', intervalCount: 1 },
      'interval',
    ],
    ['ONE_TIME with trialDays', { type: 'ONE_TIME', amountMinor: 100, trialDays: 7 }, 'trialDays'],
    ['an unknown field', { type: 'ONE_TIME', amountMinor: 100, active: false }, 'active'],
  ];

  it.each(invalid)(
    'rejects %s with 400 VALIDATION_FAILED, creating nothing',
    async (_label, body, field) => {
      const product = await createProduct(t, app);
      const req = post(product.id).set('Idempotency-Key', `bad-${field}-${product.id}`);
      const res =
        typeof body === 'string'
          ? await req.set('Content-Type', 'application/json').send(body)
          : await req.send(body);
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await priceCount(product.id)).toBe(0);
      expect(await productStatus(product.id)).toBe('DRAFT');
      // A 400 does not consume the Idempotency-Key.
      const keys = await t.db.query(
        'SELECT count(*)::int AS n FROM idempotency_keys WHERE key = $1',
        [`bad-${field}-${product.id}`],
      );
      expect(keys.rows[0].n).toBe(0);
    },
  );

  it('rejects a currency other than BDT with 400 UNSUPPORTED_CURRENCY', async () => {
    const product = await createProduct(t, app);
    const res = await post(product.id).send({
      type: 'ONE_TIME',
      amountMinor: 100,
      currency: 'USD',
    });
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('UNSUPPORTED_CURRENCY');
  });

  it('refuses a price on an ARCHIVED product with 409 INVALID_STATE', async () => {
    const product = await createProduct(t, app);
    await createPrice(t, app, product.id);
    await t
      .http()
      .post(`/api/v1/admin/products/${product.id}/archive`)
      .set(bearer(await superAdminToken(t)))
      .expect(200);
    const res = await post(product.id).send(MONTHLY);
    expect(res.status).toBe(409);
    expect(res.body.meta.errorCode).toBe('INVALID_STATE');
    expect(res.body.data).toBeNull();
  });

  it('replays a price creation with the same Idempotency-Key and creates it once', async () => {
    const product = await createProduct(t, app);
    const send = (body: Record<string, unknown>) =>
      post(product.id).set('Idempotency-Key', `price-${product.id}`).send(body);
    const first = await send(MONTHLY);
    expect(first.status).toBe(201);
    const replay = await send(MONTHLY);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await priceCount(product.id)).toBe(1);
    const reused = await send({ ...MONTHLY, amountMinor: 1 });
    expect(reused.status).toBe(422);
    expect(reused.body.meta.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await priceCount(product.id)).toBe(1);
  });

  it('keeps prices inside their partition (TEST, LIVE, other app)', async () => {
    const product = await createProduct(t, app, 'TEST');
    const price = await createPrice(t, app, product.id);
    for (const creds of [app.LIVE, other.TEST, other.LIVE]) {
      const create = await post(product.id, creds).send(ONE_TIME);
      expect(create.status).toBe(404);
      expect(create.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
      const deactivate = await t
        .http()
        .post(`/api/v1/products/${product.id}/prices/${price.id}/deactivate`)
        .set(asApp(creds));
      expect(deactivate.status).toBe(404);
      expect(deactivate.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    }
    expect(await priceCount(product.id)).toBe(1);
    const row = await t.db.query('SELECT active FROM prices WHERE id = $1', [price.id]);
    expect(row.rows[0].active).toBe(true);

    const missing = await post(99999999).send(ONE_TIME);
    expect(missing.status).toBe(404);
  });

  it('deactivating a price answers 200 with the inactive price', async () => {
    const product = await createProduct(t, app);
    const price = await createPrice(t, app, product.id, MONTHLY);
    const res = await t
      .http()
      .post(`/api/v1/products/${product.id}/prices/${price.id}/deactivate`)
      .set(asApp(app.TEST));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      ...price,
      active: false,
    });
  });
});
