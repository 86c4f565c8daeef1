import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

import { BenefitsService } from '../../src/catalog/benefits.service';
import { CatalogService } from '../../src/catalog/catalog.service';
import { type CreatePriceInput, PricesService } from '../../src/catalog/prices.service';
import { ProductsService } from '../../src/catalog/products.service';
import { AppError } from '../../src/common/errors/app-error';
import type { TenantScope } from '../../src/database/tenant';
import { withWriteRefused } from '../support/faults';
import { serviceFixture } from '../support/service-fixture';
import { insertApp } from '../support/test-context';

const ONE_TIME: CreatePriceInput = { type: 'ONE_TIME', amountMinor: 150000 };
const MONTHLY: CreatePriceInput = {
  type: 'RECURRING',
  amountMinor: 50000,
  interval: 'MONTH',
  intervalCount: 1,
};

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

/**
 * The catalog's rules as services on a real database, no HTTP in between
 * (formerly proven in test/e2e/catalog-products, catalog-prices and
 * catalog-service, which keep the HTTP contract: statuses, envelopes,
 * validation 400s naming fields, 401/403, 404 across apps and modes,
 * Idempotency-Key replays, list paging, sorting and filters): products are
 * DRAFT until their first price, then ACTIVE; ARCHIVED takes no new price
 * and archiving again is a no-op; a price's terms never change, only
 * `active`; benefits attach once, in order, to a product of any status; the
 * list loads its details in a constant number of queries; and what
 * purchases and entitlements ask of the catalog (CatalogService).
 */
describe('catalog (medium tier: services on a real database)', () => {
  const f = serviceFixture({ appName: 'Catalog' });
  let seq = 0;
  let live: TenantScope;
  let other: TenantScope;
  beforeAll(async () => {
    live = { appId: f.scope.appId, mode: 'LIVE' };
    other = { appId: await insertApp(f.c.db, 'Catalog other'), mode: 'TEST' };
  });

  const products = () => f.get(ProductsService);
  const prices = () => f.get(PricesService);
  const benefits = () => f.get(BenefitsService);
  const catalog = () => f.get(CatalogService);

  /** A DRAFT product of `scope`. */
  const newProduct = async (scope: TenantScope = f.scope, name = `Product ${++seq}`) =>
    (await products().create(scope, { name })).product;
  const newPrice = (productId: number, terms: CreatePriceInput = ONE_TIME) =>
    prices().create(f.scope, productId, terms);
  async function newBenefit(lookupKey: string, activate = false, scope: TenantScope = f.scope) {
    const b = await benefits().create(scope, {
      lookupKey: `${lookupKey}-${++seq}`,
      name: lookupKey,
    });
    return activate ? benefits().activate(scope, b.id) : b;
  }
  const productStatus = async (id: number) =>
    (await f.c.db.query('SELECT status FROM products WHERE id = $1', [id])).rows[0].status;
  const priceCount = async (productId: number) =>
    (await f.c.db.query('SELECT count(*)::int AS n FROM prices WHERE product_id = $1', [productId]))
      .rows[0].n;
  const linkCount = async (productId: number) =>
    (
      await f.c.db.query('SELECT count(*)::int AS n FROM product_benefits WHERE product_id = $1', [
        productId,
      ])
    ).rows[0].n;
  const priceActive = async (id: number) =>
    (await f.c.db.query('SELECT active FROM prices WHERE id = $1', [id])).rows[0].active;

  describe('products', () => {
    it('a new product is DRAFT in its own partition, with no prices or benefits; description defaults to null', async () => {
      const bare = await products().create(f.scope, { name: 'Basic' });
      expect(bare).toEqual({
        product: expect.objectContaining({
          appId: f.scope.appId,
          mode: 'TEST',
          name: 'Basic',
          description: null,
          status: 'DRAFT',
        }),
        prices: [],
        benefits: [],
      });
      const described = await products().create(live, { name: 'Pro', description: 'All' });
      expect(described.product).toMatchObject({ mode: 'LIVE', description: 'All' });
      const rows = await f.c.db.query(
        'SELECT id::int AS id, app_id::int AS app_id, mode, status, description FROM products WHERE id = ANY($1::bigint[]) ORDER BY id',
        [[bare.product.id, described.product.id]],
      );
      expect(rows.rows).toEqual([
        {
          id: bare.product.id,
          app_id: f.scope.appId,
          mode: 'TEST',
          status: 'DRAFT',
          description: null,
        },
        {
          id: described.product.id,
          app_id: f.scope.appId,
          mode: 'LIVE',
          status: 'DRAFT',
          description: 'All',
        },
      ]);
    });

    it('archives a product from DRAFT or ACTIVE, keeping its prices active; archiving again is a no-op; only in its own partition', async () => {
      const product = await newProduct();
      const price = await newPrice(product.id);
      expect(await productStatus(product.id)).toBe('ACTIVE');
      const archived = await products().archive(f.scope, product.id);
      expect(archived.product).toMatchObject({ id: product.id, status: 'ARCHIVED' });
      expect(archived.prices).toEqual([expect.objectContaining({ id: price.id, active: true })]);
      const again = await products().archive(f.scope, product.id);
      expect(again.product.status).toBe('ARCHIVED');
      expect(again.prices).toEqual([expect.objectContaining({ id: price.id, active: true })]);
      expect((await products().get(f.scope, product.id)).product.status).toBe('ARCHIVED');
      expect(await productStatus(product.id)).toBe('ARCHIVED');

      const draft = await newProduct();
      expect((await products().archive(f.scope, draft.id)).product.status).toBe('ARCHIVED');
      expect(await productStatus(draft.id)).toBe('ARCHIVED');

      const elsewhere = await newProduct();
      for (const scope of [live, other])
        expect(await codeOf(products().archive(scope, elsewhere.id))).toBe('RESOURCE_NOT_FOUND');
      expect(await codeOf(products().archive(f.scope, 99999999))).toBe('RESOURCE_NOT_FOUND');
      expect(await productStatus(elsewhere.id)).toBe('DRAFT');
    });
  });

  describe('benefits attached to products', () => {
    it('attaching a benefit twice links it once; the product comes back with its prices and benefits', async () => {
      const product = await newProduct();
      const price = await newPrice(product.id, MONTHLY);
      const benefit = await newBenefit('gold', true);
      const first = await products().attachBenefit(f.scope, product.id, benefit.id);
      expect(first.product).toMatchObject({ id: product.id, status: 'ACTIVE' });
      expect(first.prices).toEqual([
        expect.objectContaining({ id: price.id, type: 'RECURRING', interval: 'MONTH' }),
      ]);
      expect(first.benefits).toEqual([
        expect.objectContaining({
          id: benefit.id,
          lookupKey: benefit.lookupKey,
          name: 'gold',
          metadata: null,
          active: true,
          mode: 'TEST',
        }),
      ]);
      const second = await products().attachBenefit(f.scope, product.id, benefit.id);
      expect(second.benefits.map((b) => b.id)).toEqual([benefit.id]);
      expect(await linkCount(product.id)).toBe(1);
    });

    it('an inactive benefit may be attached; benefits keep the order of attachment', async () => {
      const product = await newProduct();
      const a = await newBenefit('b-first');
      const b = await newBenefit('b-second', true);
      await products().attachBenefit(f.scope, product.id, a.id);
      const res = await products().attachBenefit(f.scope, product.id, b.id);
      expect(res.benefits.map((x) => [x.id, x.active])).toEqual([
        [a.id, false],
        [b.id, true],
      ]);
      expect((await products().get(f.scope, product.id)).benefits.map((x) => x.id)).toEqual([
        a.id,
        b.id,
      ]);
    });

    it('benefits attach to an ARCHIVED product too', async () => {
      const product = await newProduct();
      await products().archive(f.scope, product.id);
      const benefit = await newBenefit('legacy', true);
      const res = await products().attachBenefit(f.scope, product.id, benefit.id);
      expect(res.product.status).toBe('ARCHIVED');
      expect(res.benefits).toEqual([expect.objectContaining({ id: benefit.id })]);
      expect(await linkCount(product.id)).toBe(1);
    });
  });

  describe('the product list', () => {
    it('loads prices and benefits with one query each, however many products are listed', async () => {
      const scope: TenantScope = { appId: await insertApp(f.c.db, 'Catalog list'), mode: 'TEST' };
      const benefit = await newBenefit('shared', true, scope);
      for (const name of ['Charlie', 'Alpha', 'Echo', 'Bravo', 'Delta']) {
        const { product } = await products().create(scope, { name });
        await prices().create(scope, product.id, ONE_TIME);
        await prices().create(scope, product.id, MONTHLY);
        await products().attachBenefit(scope, product.id, benefit.id);
      }
      await products().list(scope, { size: 1 }); // warm up
      const spy = jest.spyOn(PostgresQueryRunner.prototype, 'query');
      try {
        const count = async (size: number) => {
          spy.mockClear();
          const page = await products().list(scope, { size });
          expect(page.items).toHaveLength(size);
          for (const p of page.items) {
            expect(p.prices.map((x) => [x.productId, x.type])).toEqual([
              [p.product.id, 'ONE_TIME'],
              [p.product.id, 'RECURRING'],
            ]);
            expect(p.benefits.map((b) => b.id)).toEqual([benefit.id]);
          }
          const sql = spy.mock.calls.map((c) => String(c[0]));
          return {
            total: sql.length,
            prices: sql.filter((s) => /FROM "prices"/.test(s)).length,
            links: sql.filter((s) => /FROM "product_benefits"/.test(s)).length,
          };
        };
        const one = await count(1);
        const five = await count(5);
        expect(five.prices).toBe(1);
        expect(five.links).toBe(1);
        expect(five.total).toBe(one.total);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('prices', () => {
    it('the first price turns a DRAFT product ACTIVE in the same transaction; later prices leave it ACTIVE', async () => {
      const product = await newProduct();
      // The product's step refused: the price goes with it.
      await expect(
        withWriteRefused(f.c.db, 'products', 'status', () => newPrice(product.id)),
      ).rejects.toThrow(/injected fault/);
      expect(await priceCount(product.id)).toBe(0);
      expect(await productStatus(product.id)).toBe('DRAFT');

      const price = await newPrice(product.id);
      expect(price).toMatchObject({
        appId: f.scope.appId,
        mode: 'TEST',
        productId: product.id,
        type: 'ONE_TIME',
        amountMinor: 150000,
        currency: 'BDT',
        interval: null,
        intervalCount: null,
        trialDays: null,
        active: true,
      });
      expect(await productStatus(product.id)).toBe('ACTIVE');
      const got = await products().get(f.scope, product.id);
      expect(got.product.status).toBe('ACTIVE');
      expect(got.prices.map((p) => p.id)).toEqual([price.id]);

      const second = await newPrice(product.id, {
        ...ONE_TIME,
        amountMinor: 90000,
        currency: 'BDT',
      });
      expect(second.active).toBe(true);
      expect(await productStatus(product.id)).toBe('ACTIVE');
      expect(await priceCount(product.id)).toBe(2);
    });

    it('a RECURRING price takes trialDays 0 unless given; its terms are stored as given', async () => {
      const product = await newProduct();
      const plain = await newPrice(product.id, MONTHLY);
      expect(plain).toMatchObject({
        type: 'RECURRING',
        interval: 'MONTH',
        intervalCount: 1,
        trialDays: 0,
        active: true,
      });
      const trial = await newPrice(product.id, {
        type: 'RECURRING',
        amountMinor: 500000,
        interval: 'YEAR',
        intervalCount: 1,
        trialDays: 730,
      });
      expect(trial).toMatchObject({ interval: 'YEAR', trialDays: 730 });
      const row = await f.c.db.query(
        'SELECT amount_minor, interval, interval_count, trial_days, app_id::int AS app_id, mode FROM prices WHERE id = $1',
        [trial.id],
      );
      expect(row.rows[0]).toEqual({
        amount_minor: 500000,
        interval: 'YEAR',
        interval_count: 1,
        trial_days: 730,
        app_id: f.scope.appId,
        mode: 'TEST',
      });
    });

    it('only BDT: another currency is UNSUPPORTED_CURRENCY and creates nothing', async () => {
      const product = await newProduct();
      for (const currency of ['USD', 'bdt'])
        expect(await codeOf(newPrice(product.id, { ...ONE_TIME, currency }))).toBe(
          'UNSUPPORTED_CURRENCY',
        );
      expect(await priceCount(product.id)).toBe(0);
      expect(await productStatus(product.id)).toBe('DRAFT');
    });

    it('an ARCHIVED product takes no new price: INVALID_STATE, nothing created, it stays ARCHIVED', async () => {
      const product = await newProduct();
      await newPrice(product.id);
      expect((await products().archive(f.scope, product.id)).product.status).toBe('ARCHIVED');
      expect(await codeOf(newPrice(product.id, MONTHLY))).toBe('INVALID_STATE');
      expect(await priceCount(product.id)).toBe(1);
      expect(await productStatus(product.id)).toBe('ARCHIVED');
    });

    it('a price of an ARCHIVED product can still be deactivated; the product stays ARCHIVED', async () => {
      const product = await newProduct();
      const price = await newPrice(product.id);
      await products().archive(f.scope, product.id);
      const res = await prices().deactivate(f.scope, product.id, price.id);
      expect(res).toMatchObject({ id: price.id, active: false });
      expect(await priceActive(price.id)).toBe(false);
      expect(await productStatus(product.id)).toBe('ARCHIVED');
    });

    it('deactivating a price is idempotent and keeps its terms; the product stays ACTIVE and takes new prices', async () => {
      const product = await newProduct();
      const price = await newPrice(product.id, MONTHLY);
      const terms = (p: typeof price) => ({
        productId: p.productId,
        type: p.type,
        amountMinor: p.amountMinor,
        currency: p.currency,
        interval: p.interval,
        intervalCount: p.intervalCount,
        trialDays: p.trialDays,
      });
      const off = await prices().deactivate(f.scope, product.id, price.id);
      expect(off).toMatchObject({ id: price.id, active: false });
      expect(terms(off)).toEqual(terms(price));
      const again = await prices().deactivate(f.scope, product.id, price.id);
      expect(again).toMatchObject({ id: price.id, active: false });
      expect(terms(again)).toEqual(terms(price));
      const got = await products().get(f.scope, product.id);
      expect(got.product.status).toBe('ACTIVE');
      expect(got.prices.map((p) => [p.id, p.active])).toEqual([[price.id, false]]);
      // A new price is still welcome.
      expect((await newPrice(product.id)).active).toBe(true);
      expect(await productStatus(product.id)).toBe('ACTIVE');
    });

    it('a price cannot be deactivated through another product of its partition', async () => {
      const a = await newProduct();
      const b = await newProduct();
      const price = await newPrice(a.id);
      expect(await codeOf(prices().deactivate(f.scope, b.id, price.id))).toBe('RESOURCE_NOT_FOUND');
      expect(await priceActive(price.id)).toBe(true);
    });
  });

  describe('CatalogService for purchases and entitlements', () => {
    it('returns the price and its ACTIVE product, outside any transaction', async () => {
      const product = await newProduct();
      const price = await newPrice(product.id, MONTHLY);
      const found = await catalog().priceForPurchase(f.scope, price.id);
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
        appId: f.scope.appId,
        mode: 'TEST',
      });
    });

    it('is RESOURCE_NOT_FOUND for a price of the other mode, of another app, or unknown', async () => {
      const product = await newProduct();
      const price = await newPrice(product.id);
      expect(await codeOf(catalog().priceForPurchase(live, price.id))).toBe('RESOURCE_NOT_FOUND');
      expect(await codeOf(catalog().priceForPurchase(other, price.id))).toBe('RESOURCE_NOT_FOUND');
      expect(await codeOf(catalog().priceForPurchase(f.scope, 99999999))).toBe(
        'RESOURCE_NOT_FOUND',
      );
    });

    it('is INVALID_STATE for an inactive price', async () => {
      const product = await newProduct();
      const price = await newPrice(product.id);
      await prices().deactivate(f.scope, product.id, price.id);
      expect(await codeOf(catalog().priceForPurchase(f.scope, price.id))).toBe('INVALID_STATE');
    });

    it('is INVALID_STATE for an active price of an ARCHIVED product', async () => {
      const product = await newProduct();
      const price = await newPrice(product.id);
      await products().archive(f.scope, product.id);
      expect(await codeOf(catalog().priceForPurchase(f.scope, price.id))).toBe('INVALID_STATE');
    });

    it('is INVALID_STATE for a product that is not ACTIVE, whatever its prices', async () => {
      const product = await newProduct();
      const price = await newPrice(product.id);
      // Not reachable through the services (a price activates its product): forced here to pin the rule.
      await f.c.db.query(`UPDATE products SET status = 'DRAFT' WHERE id = $1`, [product.id]);
      expect(await codeOf(catalog().priceForPurchase(f.scope, price.id))).toBe('INVALID_STATE');
    });

    it('inside a transaction holds share locks, so archive and deactivate wait for the purchase', async () => {
      const product = await newProduct();
      const price = await newPrice(product.id);
      const txHost = f.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
      const tryLock = (table: string, id: number, lock: string) =>
        f.c.db.query(`SELECT id FROM ${table} WHERE id = $1 ${lock} NOWAIT`, [id]).then(
          () => 'free',
          (err: { code?: string }) => (err.code === '55P03' ? 'locked' : `error ${err.code}`),
        );
      await txHost.withTransaction(async () => {
        const found = await catalog().priceForPurchase(f.scope, price.id);
        expect(found.price.id).toBe(price.id);
        expect(await tryLock('products', product.id, 'FOR UPDATE')).toBe('locked');
        expect(await tryLock('prices', price.id, 'FOR UPDATE')).toBe('locked');
        // Other purchases are not blocked.
        expect(await tryLock('products', product.id, 'FOR SHARE')).toBe('free');
      });
      expect(await tryLock('products', product.id, 'FOR UPDATE')).toBe('free');
    });

    it('lists the active benefits of a product in order of attachment', async () => {
      const product = await newProduct();
      const inactive = await newBenefit('later');
      const b1 = await newBenefit('first', true);
      const b2 = await newBenefit('second', true);
      for (const b of [b2, inactive, b1]) await products().attachBenefit(f.scope, product.id, b.id);
      const found = await catalog().activeBenefitsOfProduct(f.scope, product.id);
      expect(found.map((b) => [b.id, b.name, b.active])).toEqual([
        [b2.id, 'second', true],
        [b1.id, 'first', true],
      ]);
      await benefits().activate(f.scope, inactive.id);
      expect(
        (await catalog().activeBenefitsOfProduct(f.scope, product.id)).map((b) => b.id),
      ).toEqual([b2.id, inactive.id, b1.id]);
    });

    it("lists no benefits for a bare product, and is RESOURCE_NOT_FOUND outside the product's partition", async () => {
      const product = await newProduct();
      expect(await catalog().activeBenefitsOfProduct(f.scope, product.id)).toEqual([]);
      expect(await codeOf(catalog().activeBenefitsOfProduct(live, product.id))).toBe(
        'RESOURCE_NOT_FOUND',
      );
      expect(await codeOf(catalog().activeBenefitsOfProduct(other, product.id))).toBe(
        'RESOURCE_NOT_FOUND',
      );
    });
  });
});
