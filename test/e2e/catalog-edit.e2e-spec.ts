import { appFixture } from '../support/app-fixture';
import {
  attachBenefit,
  createBenefit,
  createPrice,
  createProduct,
} from '../support/catalog-factories';
import { adminWith, asApp, bearer, createApp } from '../support/factories';
import type { TestApp } from '../support/test-app';

/*
 * Editing the catalog (decisions 20: the dashboard creates and edits
 * products, prices and benefits): `PATCH /products/{id}` renames a product
 * or changes its description, `PATCH /benefits/{id}` renames a benefit or
 * changes its metadata (its lookupKey stays). Prices never change: a new
 * price and the old one deactivated (catalog-prices.e2e-spec.ts). Both
 * routes are app routes: an app key, or an admin acting on the app with
 * `catalog:write`; audited when an admin makes them.
 */
const fixture = appFixture();
let t: TestApp;
beforeAll(() => {
  t = fixture.t;
});

describe('PATCH /products/{id}', () => {
  it('renames and re-describes, keeping status, prices and benefits; fields left out stay; null clears the description', async () => {
    const { app } = fixture;
    const product = await createProduct(t, app, 'TEST', { name: 'Pro', description: 'Old' });
    await createPrice(t, app, product.id);
    const benefit = await createBenefit(t, app, 'edit-support');
    await attachBenefit(t, product.id, benefit.id);
    const renamed = await t
      .http()
      .patch(`/api/v1/products/${product.id}`)
      .set(asApp(app.TEST))
      .send({ name: '  Pro plan  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({
      id: product.id,
      name: 'Pro plan',
      description: 'Old',
      status: 'ACTIVE',
      prices: [expect.objectContaining({ amountMinor: 150000, active: true })],
      benefits: [expect.objectContaining({ id: benefit.id })],
    });
    const cleared = await t
      .http()
      .patch(`/api/v1/products/${product.id}`)
      .set(asApp(app.TEST))
      .send({ description: null });
    expect(cleared.body.data).toMatchObject({ name: 'Pro plan', description: null });
  });

  it.each([
    ['blank name', { name: '  ' }, 'name'],
    ['null name', { name: null }, 'name'],
    ['long description', { description: 'x'.repeat(4001) }, 'description'],
    ['unknown field', { status: 'ARCHIVED' }, 'status'],
  ])('rejects %s with 400 naming the field', async (_label, body, field) => {
    const product = await createProduct(t, fixture.app);
    const res = await t
      .http()
      .patch(`/api/v1/products/${product.id}`)
      .set(asApp(fixture.app.TEST))
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(res.body.meta.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('another app’s or the other mode’s product is 404', async () => {
    const product = await createProduct(t, fixture.app);
    const other = await createApp(t);
    for (const creds of [other.TEST, fixture.app.LIVE]) {
      const res = await t
        .http()
        .patch(`/api/v1/products/${product.id}`)
        .set(asApp(creds))
        .send({ name: 'Taken' });
      expect(res.status).toBe(404);
      expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    }
  });

  it('an admin acting on the app needs catalog:write, and is the audit row’s actor', async () => {
    const { app } = fixture;
    const product = await createProduct(t, app);
    const acting = (token: string) => ({
      ...bearer(token),
      'X-App-Id': String(app.id),
      'X-Mode': 'TEST',
    });
    const reader = await adminWith(t, ['invoices:read']);
    const refused = await t
      .http()
      .patch(`/api/v1/products/${product.id}`)
      .set(acting(reader.token))
      .send({ name: 'No' });
    expect(refused.status).toBe(403);
    expect(refused.body.meta.errorCode).toBe('PERMISSION_DENIED');
    const writer = await adminWith(t, ['catalog:write']);
    const res = await t
      .http()
      .patch(`/api/v1/products/${product.id}`)
      .set(acting(writer.token))
      .send({ name: 'Renamed by staff' });
    expect(res.status).toBe(200);
    const audited = await t.db.query(
      `SELECT actor_email, before, after FROM audit_events
        WHERE action = 'product.updated' AND target_id = $1`,
      [String(product.id)],
    );
    expect(audited.rows).toEqual([
      {
        actor_email: writer.email,
        // (An audit row keeps the fields that changed.)
        before: { name: 'Pro plan' },
        after: { name: 'Renamed by staff' },
      },
    ]);
  });
});

describe('PATCH /benefits/{id}', () => {
  it('renames and changes metadata; the lookupKey and active state stay', async () => {
    const { app } = fixture;
    const benefit = await createBenefit(t, app, 'edit-premium', { activate: true });
    const res = await t
      .http()
      .patch(`/api/v1/benefits/${benefit.id}`)
      .set(asApp(app.TEST))
      .send({ name: 'Premium support (24/7)', metadata: '{"tier":2}' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: benefit.id,
      lookupKey: 'edit-premium',
      name: 'Premium support (24/7)',
      metadata: '{"tier":2}',
      active: true,
    });
    const cleared = await t
      .http()
      .patch(`/api/v1/benefits/${benefit.id}`)
      .set(asApp(app.TEST))
      .send({ metadata: null });
    expect(cleared.body.data).toMatchObject({ name: 'Premium support (24/7)', metadata: null });
  });

  it('the lookupKey cannot be changed (400), another app’s benefit is 404', async () => {
    const { app } = fixture;
    const benefit = await createBenefit(t, app, 'edit-fixed');
    const changed = await t
      .http()
      .patch(`/api/v1/benefits/${benefit.id}`)
      .set(asApp(app.TEST))
      .send({ lookupKey: 'other' });
    expect(changed.status).toBe(400);
    expect(changed.body.meta.details).toEqual([expect.objectContaining({ field: 'lookupKey' })]);
    const other = await createApp(t);
    const foreign = await t
      .http()
      .patch(`/api/v1/benefits/${benefit.id}`)
      .set(asApp(other.TEST))
      .send({ name: 'Mine' });
    expect(foreign.status).toBe(404);
  });
});
