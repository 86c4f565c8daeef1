import { appFixture } from '../support/app-fixture';
import {
  attachBenefit,
  createBenefit,
  createPrice,
  createProduct,
  MONTHLY,
} from '../support/catalog-factories';
import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  superAdminToken,
} from '../support/factories';
import type { TestApp } from '../support/test-app';

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/*
 * Products over HTTP: the contract of the admin and app-key routes
 * (statuses, envelopes, validation 400s naming fields, 401/403, 404 across
 * apps and modes, Idempotency-Key replays, list paging, sorting and
 * filters), on one server, each part with apps of its own. The rules (DRAFT
 * products, archiving from any status and again as a no-op, benefits
 * attached once, in order, inactive or to an ARCHIVED product, the list's
 * constant number of queries) are proven on the services in
 * test/medium/catalog.medium-spec.ts.
 */
const fixture = appFixture();
let t: TestApp;
beforeAll(() => {
  t = fixture.t;
});

describe('catalog: products (admin)', () => {
  let app: CreatedApp;
  beforeAll(() => {
    app = fixture.app;
  });

  it('creates a DRAFT product in the partition named by the query', async () => {
    const res = await t
      .http()
      .post(`/api/v1/admin/products?applicationId=${app.id}&mode=LIVE`)
      .set(bearer(await superAdminToken(t)))
      .send({ name: '  Pro plan ', description: 'All features' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      name: 'Pro plan',
      description: 'All features',
      status: 'DRAFT',
      mode: 'LIVE',
      prices: [],
      benefits: [],
      createdAt: ISO,
      updatedAt: ISO,
    });
    const row = await t.db.query(
      'SELECT app_id, mode, status, description FROM products WHERE id = $1',
      [res.body.data.id],
    );
    expect(row.rows).toEqual([
      { app_id: app.id, mode: 'LIVE', status: 'DRAFT', description: 'All features' },
    ]);
  });

  it.each([
    ['missing name', `mode=TEST`, {}, 'name'],
    ['blank name', `mode=TEST`, { name: '   ' }, 'name'],
    ['unknown field', `mode=TEST`, { name: 'X', price: 100 }, 'price'],
    ['bad mode', `mode=test`, { name: 'X' }, 'mode'],
    ['missing applicationId', ``, { name: 'X' }, 'applicationId'],
  ])('rejects %s with 400 VALIDATION_FAILED', async (_label, query, body, field) => {
    const q = query === '' ? 'mode=TEST' : `applicationId=${app.id}&${query}`;
    const before = await t.db.query('SELECT count(*)::int AS n FROM products');
    const res = await t
      .http()
      .post(`/api/v1/admin/products?${q}`)
      .set(bearer(await superAdminToken(t)))
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(res.body.meta.details.map((d: { field: string }) => d.field)).toContain(field);
    const after = await t.db.query('SELECT count(*)::int AS n FROM products');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('answers 404 for an application that does not exist', async () => {
    const res = await t
      .http()
      .post(`/api/v1/admin/products?applicationId=987654&mode=TEST`)
      .set(bearer(await superAdminToken(t)))
      .send({ name: 'Ghost' });
    expect(res.status).toBe(404);
    expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
  });

  it('requires catalog:write for every admin catalog route', async () => {
    const product = await createProduct(t, app);
    const benefit = await createBenefit(t, app, 'perm-check');
    const reader = await adminWith(t, ['apps:read', 'invoices:read']);
    const calls = [
      () =>
        t
          .http()
          .post(`/api/v1/admin/products?applicationId=${app.id}&mode=TEST`)
          .set(bearer(reader.token))
          .send({ name: 'No' }),
      () => t.http().post(`/api/v1/admin/products/${product.id}/archive`).set(bearer(reader.token)),
      () =>
        t
          .http()
          .post(`/api/v1/admin/products/${product.id}/benefits`)
          .set(bearer(reader.token))
          .send({ benefitId: benefit.id }),
    ];
    for (const call of calls) {
      const res = await call();
      expect(res.status).toBe(403);
      expect(res.body.meta.errorCode).toBe('PERMISSION_DENIED');
    }
    const unauthenticated = await t.http().post(`/api/v1/admin/products/${product.id}/archive`);
    expect(unauthenticated.status).toBe(401);
    const after = await t.db.query(
      'SELECT status, (SELECT count(*)::int FROM product_benefits WHERE product_id = $1) AS links FROM products WHERE id = $1',
      [product.id],
    );
    expect(after.rows[0]).toEqual({ status: 'DRAFT', links: 0 });

    const writer = await adminWith(t, ['catalog:write']);
    const ok = await t
      .http()
      .post(`/api/v1/admin/products?applicationId=${app.id}&mode=TEST`)
      .set(bearer(writer.token))
      .send({ name: 'Yes' });
    expect(ok.status).toBe(201);
    const archived = await t
      .http()
      .post(`/api/v1/admin/products/${product.id}/archive`)
      .set(bearer(writer.token));
    expect(archived.status).toBe(200);
  });

  it('archiving answers 200 with the product, 404 for an unknown product, 400 for a malformed id', async () => {
    const product = await createProduct(t, app);
    await createPrice(t, app, product.id);
    const admin = bearer(await superAdminToken(t));
    const res = await t.http().post(`/api/v1/admin/products/${product.id}/archive`).set(admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: product.id,
      status: 'ARCHIVED',
      prices: [expect.objectContaining({ active: true })],
      benefits: [],
    });
    const missing = await t.http().post(`/api/v1/admin/products/99999999/archive`).set(admin);
    expect(missing.status).toBe(404);
    expect(missing.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    const badId = await t.http().post(`/api/v1/admin/products/abc/archive`).set(admin);
    expect(badId.status).toBe(400);
    expect(badId.body.meta.errorCode).toBe('VALIDATION_FAILED');
  });
});

describe('catalog: benefits attached to products', () => {
  let app: CreatedApp;
  let other: CreatedApp;
  beforeAll(async () => {
    app = await createApp(t);
    other = await createApp(t);
  });

  it('attaching a benefit answers 200 with the product, its prices and its benefits (again: 200)', async () => {
    const product = await createProduct(t, app);
    const price = await createPrice(t, app, product.id, MONTHLY);
    const benefit = await createBenefit(t, app, 'gold', { activate: true });
    const first = await attachBenefit(t, product.id, benefit.id);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      id: product.id,
      status: 'ACTIVE',
      prices: [expect.objectContaining({ id: price.id, type: 'RECURRING', interval: 'MONTH' })],
      benefits: [
        {
          id: benefit.id,
          lookupKey: 'gold',
          name: 'gold',
          metadata: null,
          active: true,
          mode: 'TEST',
          createdAt: ISO,
          updatedAt: ISO,
        },
      ],
    });
    const second = await attachBenefit(t, product.id, benefit.id);
    expect(second.status).toBe(200);
  });

  it('refuses a benefit of the other mode or of another app with 404, attaching nothing', async () => {
    const product = await createProduct(t, app, 'TEST');
    const liveBenefit = await createBenefit(t, app, 'live-only', { mode: 'LIVE' });
    const foreign = await createBenefit(t, other, 'foreign');
    for (const benefitId of [liveBenefit.id, foreign.id, 99999999]) {
      const res = await attachBenefit(t, product.id, benefitId);
      expect(res.status).toBe(404);
      expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    }
    const rows = await t.db.query(
      'SELECT count(*)::int AS n FROM product_benefits WHERE product_id = $1',
      [product.id],
    );
    expect(rows.rows[0].n).toBe(0);
  });

  it('validates the body and the product id', async () => {
    const product = await createProduct(t, app);
    const benefit = await createBenefit(t, app, 'valid');
    for (const body of [
      {},
      { benefitId: String(benefit.id) },
      { benefitId: 1.5 },
      { benefitId: benefit.id, extra: 1 },
    ]) {
      const admin = bearer(await superAdminToken(t));
      const bad = await t
        .http()
        .post(`/api/v1/admin/products/${product.id}/benefits`)
        .set(admin)
        .send(body);
      expect(bad.status).toBe(400);
      expect(bad.body.meta.errorCode).toBe('VALIDATION_FAILED');
    }
    const missing = await attachBenefit(t, 99999999, benefit.id);
    expect(missing.status).toBe(404);
  });
});

describe('catalog: reading products with app keys', () => {
  let app: CreatedApp;
  let other: CreatedApp;
  beforeAll(async () => {
    app = await createApp(t);
    other = await createApp(t);
  });

  it('shows a product only to keys of its own app and mode', async () => {
    const product = await createProduct(t, app, 'TEST');
    const own = await t.http().get(`/api/v1/products/${product.id}`).set(asApp(app.TEST));
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({
      id: product.id,
      mode: 'TEST',
      status: 'DRAFT',
      prices: [],
      benefits: [],
    });
    for (const creds of [app.LIVE, other.TEST, other.LIVE]) {
      const res = await t.http().get(`/api/v1/products/${product.id}`).set(asApp(creds));
      expect(res.status).toBe(404);
      expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
      expect(res.body.data).toBeNull();
    }
    const list = await t.http().get('/api/v1/products').set(asApp(app.LIVE));
    expect(list.body.data.map((p: { id: number }) => p.id)).not.toContain(product.id);
  });

  it('needs app credentials', async () => {
    const res = await t.http().get('/api/v1/products');
    expect(res.status).toBe(401);
    expect(res.body.meta.errorCode).toBe('AUTHENTICATION_REQUIRED');
  });

  it("lets an app create a product in its key's mode, idempotently", async () => {
    const send = () =>
      t
        .http()
        .post('/api/v1/products')
        .set(asApp(other.LIVE))
        .set('Idempotency-Key', 'prod-1')
        .send({ name: 'App made' });
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ name: 'App made', mode: 'LIVE', status: 'DRAFT' });
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    const rows = await t.db.query(
      `SELECT count(*)::int AS n FROM products WHERE app_id = $1 AND mode = 'LIVE'`,
      [other.id],
    );
    expect(rows.rows[0].n).toBe(1);
    const mode = await t
      .http()
      .post('/api/v1/products')
      .set(asApp(other.LIVE))
      .send({ name: 'x', mode: 'TEST' });
    expect(mode.status).toBe(400);
  });
});

describe('catalog: product list', () => {
  let app: CreatedApp;
  const ids: number[] = [];
  beforeAll(async () => {
    app = await createApp(t);
    const other = await createApp(t);
    for (const name of ['Charlie', 'Alpha', 'Echo', 'Bravo', 'Delta']) {
      const p = await createProduct(t, app, 'TEST', { name });
      ids.push(p.id);
    }
    // Noise in other partitions must never show up.
    await createProduct(t, app, 'LIVE', { name: 'Live one' });
    await createProduct(t, other, 'TEST', { name: 'Foreign' });
    // Give every product prices and benefits, so the list has something to batch.
    const benefit = await createBenefit(t, app, 'shared', { activate: true });
    for (const id of ids) {
      await createPrice(t, app, id);
      await createPrice(t, app, id, MONTHLY);
      await attachBenefit(t, id, benefit.id);
    }
    await t
      .http()
      .post(`/api/v1/admin/products/${ids[4]}/archive`)
      .set(bearer(await superAdminToken(t)));
  });

  it('pages through the partition newest first', async () => {
    const page0 = await t.http().get('/api/v1/products?size=2').set(asApp(app.TEST));
    expect(page0.status).toBe(200);
    expect(page0.body.pagination).toEqual({
      page: 0,
      size: 2,
      totalElements: 5,
      totalPages: 3,
      nextCursor: expect.any(String),
    });
    const page1 = await t.http().get('/api/v1/products?size=2&page=1').set(asApp(app.TEST));
    const page2 = await t.http().get('/api/v1/products?size=2&page=2').set(asApp(app.TEST));
    expect(page2.body.data).toHaveLength(1);
    const seen = [...page0.body.data, ...page1.body.data, ...page2.body.data].map(
      (p: { id: number }) => p.id,
    );
    expect(seen).toEqual([...ids].reverse());
    for (const p of page0.body.data) {
      expect(p.prices.map((x: { type: string }) => x.type)).toEqual(['ONE_TIME', 'RECURRING']);
      expect(p.prices.every((x: { productId: number }) => x.productId === p.id)).toBe(true);
      expect(p.benefits.map((b: { lookupKey: string }) => b.lookupKey)).toEqual(['shared']);
    }
  });

  it('sorts by name and filters by status', async () => {
    const byName = await t
      .http()
      .get('/api/v1/products?sortBy=name&order=asc')
      .set(asApp(app.TEST));
    expect(byName.body.data.map((p: { name: string }) => p.name)).toEqual([
      'Alpha',
      'Bravo',
      'Charlie',
      'Delta',
      'Echo',
    ]);
    const archived = await t.http().get('/api/v1/products?status=ARCHIVED').set(asApp(app.TEST));
    expect(archived.body.data.map((p: { id: number }) => p.id)).toEqual([ids[4]]);
    expect(archived.body.pagination.totalElements).toBe(1);
    const active = await t.http().get('/api/v1/products?status=ACTIVE').set(asApp(app.TEST));
    expect(active.body.pagination.totalElements).toBe(4);
  });

  it.each([['size=101'], ['sortBy=amountMinor'], ['status=GONE'], ['page=-1'], ['order=up']])(
    'rejects %s',
    async (q) => {
      const res = await t.http().get(`/api/v1/products?${q}`).set(asApp(app.TEST));
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    },
  );
});
