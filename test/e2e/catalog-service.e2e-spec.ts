import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { CatalogService } from '../../src/catalog/catalog.service';
import { AppError } from '../../src/common/errors/app-error';
import type { TenantScope } from '../../src/database/tenant';
import {
  attachBenefit,
  createBenefit,
  createPrice,
  createProduct,
  MONTHLY,
} from '../support/catalog-factories';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/** The AppError code a promise rejects with (fails the test if it resolves). */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).code;
  }
  throw new Error('expected a rejection');
}

describe('catalog: CatalogService for purchases and entitlements', () => {
  let t: TestApp;
  let app: CreatedApp;
  let other: CreatedApp;
  let catalog: CatalogService;
  let scope: TenantScope;
  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    other = await createApp(t);
    catalog = t.app.get(CatalogService);
    scope = { appId: app.id, mode: 'TEST' };
  });
  afterAll(() => t.close());

  it('returns the price and its ACTIVE product, outside any transaction', async () => {
    const product = await createProduct(t, app);
    const price = await createPrice(t, app, product.id, MONTHLY);
    const found = await catalog.priceForPurchase(scope, price.id);
    expect(found.price).toMatchObject({
      id: price.id,
      productId: product.id,
      type: 'RECURRING',
      amountMinor: 50000,
      active: true,
    });
    expect(found.product).toMatchObject({
      id: product.id,
      status: 'ACTIVE',
      appId: app.id,
      mode: 'TEST',
    });
  });

  it('is 404 for a price of the other mode, of another app, or unknown', async () => {
    const product = await createProduct(t, app);
    const price = await createPrice(t, app, product.id);
    expect(await codeOf(catalog.priceForPurchase({ appId: app.id, mode: 'LIVE' }, price.id))).toBe(
      'RESOURCE_NOT_FOUND',
    );
    expect(
      await codeOf(catalog.priceForPurchase({ appId: other.id, mode: 'TEST' }, price.id)),
    ).toBe('RESOURCE_NOT_FOUND');
    expect(await codeOf(catalog.priceForPurchase(scope, 99999999))).toBe('RESOURCE_NOT_FOUND');
  });

  it('is 409 for an inactive price', async () => {
    const product = await createProduct(t, app);
    const price = await createPrice(t, app, product.id);
    await t
      .http()
      .post(`/api/v1/products/${product.id}/prices/${price.id}/deactivate`)
      .set(asApp(app.TEST))
      .expect(200);
    expect(await codeOf(catalog.priceForPurchase(scope, price.id))).toBe('INVALID_STATE');
  });

  it('is 409 for an active price of an ARCHIVED product', async () => {
    const product = await createProduct(t, app);
    const price = await createPrice(t, app, product.id);
    await t
      .http()
      .post(`/api/v1/admin/products/${product.id}/archive`)
      .set(bearer(await superAdminToken(t)))
      .expect(200);
    expect(await codeOf(catalog.priceForPurchase(scope, price.id))).toBe('INVALID_STATE');
  });

  it('is 409 for a product that is not ACTIVE, whatever its prices', async () => {
    const product = await createProduct(t, app);
    const price = await createPrice(t, app, product.id);
    // Not reachable through the API (a price activates its product): forced here to pin the rule.
    await t.db.query(`UPDATE products SET status = 'DRAFT' WHERE id = $1`, [product.id]);
    expect(await codeOf(catalog.priceForPurchase(scope, price.id))).toBe('INVALID_STATE');
  });

  it('inside a transaction holds share locks, so archive and deactivate wait for the purchase', async () => {
    const product = await createProduct(t, app);
    const price = await createPrice(t, app, product.id);
    const txHost = t.app.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
    const tryLock = (table: string, id: number, lock: string) =>
      t.db.query(`SELECT id FROM ${table} WHERE id = $1 ${lock} NOWAIT`, [id]).then(
        () => 'free',
        (err: { code?: string }) => (err.code === '55P03' ? 'locked' : `error ${err.code}`),
      );
    await txHost.withTransaction(async () => {
      const found = await catalog.priceForPurchase(scope, price.id);
      expect(found.price.id).toBe(price.id);
      expect(await tryLock('products', product.id, 'FOR UPDATE')).toBe('locked');
      expect(await tryLock('prices', price.id, 'FOR UPDATE')).toBe('locked');
      // Other purchases are not blocked.
      expect(await tryLock('products', product.id, 'FOR SHARE')).toBe('free');
    });
    expect(await tryLock('products', product.id, 'FOR UPDATE')).toBe('free');
  });

  it('lists the active benefits of a product in order of attachment', async () => {
    const product = await createProduct(t, app);
    const inactive = await createBenefit(t, app, 'later');
    const b1 = await createBenefit(t, app, 'first', { activate: true });
    const b2 = await createBenefit(t, app, 'second', { activate: true });
    for (const b of [b2, inactive, b1])
      expect((await attachBenefit(t, product.id, b.id)).status).toBe(200);
    const benefits = await catalog.activeBenefitsOfProduct(scope, product.id);
    expect(benefits.map((b) => [b.id, b.lookupKey, b.active])).toEqual([
      [b2.id, 'second', true],
      [b1.id, 'first', true],
    ]);
    await t
      .http()
      .post(`/api/v1/benefits/${inactive.id}/activate`)
      .set(asApp(app.TEST))
      .expect(200);
    expect((await catalog.activeBenefitsOfProduct(scope, product.id)).map((b) => b.id)).toEqual([
      b2.id,
      inactive.id,
      b1.id,
    ]);
  });

  it("lists no benefits for a bare product, and is 404 outside the product's partition", async () => {
    const product = await createProduct(t, app);
    expect(await catalog.activeBenefitsOfProduct(scope, product.id)).toEqual([]);
    expect(
      await codeOf(catalog.activeBenefitsOfProduct({ appId: app.id, mode: 'LIVE' }, product.id)),
    ).toBe('RESOURCE_NOT_FOUND');
    expect(
      await codeOf(catalog.activeBenefitsOfProduct({ appId: other.id, mode: 'TEST' }, product.id)),
    ).toBe('RESOURCE_NOT_FOUND');
  });
});
