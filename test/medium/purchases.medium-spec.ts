import { InvoicePaymentsService } from '../../src/billing';
import { BenefitsService } from '../../src/catalog/benefits.service';
import { PricesService } from '../../src/catalog/prices.service';
import { ProductsService } from '../../src/catalog/products.service';
import { CustomersService } from '../../src/customers';
import { EntitlementsService } from '../../src/entitlements';
import { InvoicesService } from '../../src/invoices';
import { PurchasesService } from '../../src/purchases';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { serviceFixture } from '../support/service-fixture';
import { insertApp } from '../support/test-context';

/**
 * One-time purchases as services on a real database, with no HTTP in between
 * (test/e2e/purchases.e2e-spec.ts keeps the contract: the 201 envelope, 404
 * and 409 statuses, validation, idempotent replay, the pay page's redirect):
 * the invoice a purchase issues, what a refused purchase leaves behind (nothing),
 * invoice numbers under concurrent purchases, and the benefits a paid
 * one-time purchase grants for good.
 */
describe('purchases (medium tier: services on a real database)', () => {
  const f = serviceFixture({ balancedLedger: true, appName: 'Purchases' });
  let seq = 0;

  const purchases = () => f.get(PurchasesService);
  const products = () => f.get(ProductsService);
  const prices = () => f.get(PricesService);
  const oneTime = async (name = `Product ${++seq}`, amountMinor = 150000, scope = f.scope) => {
    const { product } = await products().create(scope, { name });
    const price = await prices().create(scope, product.id, { type: 'ONE_TIME', amountMinor });
    return { product, price };
  };
  const count = async (table: 'invoices' | 'customers', appId = f.scope.appId) =>
    (await f.c.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE app_id = $1`, [appId]))
      .rows[0].n as number;
  const eventsOf = async (type: string, appId = f.scope.appId) =>
    (
      await f.c.db.query(
        `SELECT type, data FROM events WHERE app_id = $1 AND type = $2 ORDER BY id`,
        [appId, type],
      )
    ).rows as { type: string; data: any }[];
  const entitlements = async (ref: string) => {
    const customer = await f.get(CustomersService).getByExternalId(f.scope, ref);
    return (await f.get(EntitlementsService).heldBy(f.scope, customer.id)).map(
      ({ entitlement: e, benefit: b }) => ({
        lookupKey: b.lookupKey,
        invoiceId: e.invoiceId,
        subscriptionId: e.subscriptionId,
      }),
    );
  };

  it('turns a ONE_TIME price into an ISSUED invoice with one line (invoice.issued), paid through its pay page', async () => {
    const { product, price } = await oneTime('Bangla Dictionary', 89900);
    const bought = await purchases().purchase(f.scope, {
      priceId: price.id,
      customerReference: 'buyer-1',
      customerName: 'Karim',
    });
    expect(bought).toEqual({
      invoiceId: expect.any(Number),
      invoiceNumber: expect.stringMatching(/^INV-\d{6}$/),
      status: 'ISSUED',
      totalMinor: 89900,
      currency: 'BDT',
      priceId: price.id,
      productId: product.id,
      payableLink: { payableUrl: expect.stringContaining('/pay/') },
      subscriptionId: null,
    });
    const view = await f.get(InvoicesService).get(f.scope, bought.invoiceId);
    expect(view.invoice).toMatchObject({
      priceId: price.id,
      subscriptionId: null,
      totalMinor: 89900,
      status: 'ISSUED',
    });
    expect(view.customer).toMatchObject({ externalId: 'buyer-1', name: 'Karim' });
    expect(
      view.lines.map(({ description, qty, unitAmountMinor, lineTotalMinor }) => ({
        description,
        qty,
        unitAmountMinor,
        lineTotalMinor,
      })),
    ).toEqual([
      { description: 'Bangla Dictionary', qty: 1, unitAmountMinor: 89900, lineTotalMinor: 89900 },
    ]);
    const issued = (await eventsOf('invoice.issued')).filter(
      (e) => e.data.invoice_id === bought.invoiceId,
    );
    expect(issued).toHaveLength(1);
    expect(issued[0].data).toMatchObject({ price_id: price.id, total_minor: 89900 });

    // Paid through the pay page (its token) and the sandbox.
    const token = bought.payableLink.payableUrl.split('/pay/')[1];
    const payment = await f.get(InvoicePaymentsService).payFromPage(token);
    expect(payment).toMatchObject({ invoiceId: bought.invoiceId, amountMinor: 89900 });
    await f.get(TestHelpersService).settlePayment(f.scope, payment.id, 'succeeded');
    const paid = await f.get(InvoicesService).get(f.scope, bought.invoiceId);
    expect(paid.invoice).toMatchObject({ status: 'PAID', amountPaidMinor: 89900 });
  });

  it('refuses an inactive price and an archived product (INVALID_STATE) and writes nothing', async () => {
    const { product, price: inactive } = await oneTime();
    await prices().deactivate(f.scope, product.id, inactive.id);
    const { product: archived, price: archivedPrice } = await oneTime();
    expect((await products().archive(f.scope, archived.id)).product.status).toBe('ARCHIVED');
    const before = { invoices: await count('invoices'), customers: await count('customers') };
    for (const priceId of [inactive.id, archivedPrice.id]) {
      await expect(
        purchases().purchase(f.scope, { priceId, customerReference: 'refused-buyer' }),
      ).rejects.toMatchObject({ code: 'INVALID_STATE' });
    }
    expect({ invoices: await count('invoices'), customers: await count('customers') }).toEqual(
      before,
    );
  });

  it('concurrent purchases each get their own invoice, numbered without gaps or repeats', async () => {
    const fresh = { appId: await insertApp(f.c.db, 'Poster shop'), mode: 'TEST' as const };
    const { price } = await oneTime('Poster', 20000, fresh);
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        purchases().purchase(fresh, { priceId: price.id, customerReference: `rush-${i % 3}` }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill('fulfilled'));
    const numbers = results
      .map((r) => (r as PromiseFulfilledResult<{ invoiceNumber: string }>).value.invoiceNumber)
      .sort();
    expect(numbers).toEqual(
      Array.from({ length: 12 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`),
    );
    expect(await eventsOf('invoice.issued', fresh.appId)).toHaveLength(12);
    expect(await count('customers', fresh.appId)).toBe(3);
  });

  it('a paid one-time purchase grants its benefits for good', async () => {
    const benefits = f.get(BenefitsService);
    const perk = async (lookupKey: string) =>
      benefits.activate(
        f.scope,
        (await benefits.create(f.scope, { lookupKey, name: lookupKey })).id,
      );
    const { product, price } = await oneTime('Lifetime', 20000);
    await products().attachBenefit(f.scope, product.id, (await perk('lifetime-perk')).id);
    const bought = await purchases().purchase(f.scope, {
      priceId: price.id,
      customerReference: 'one-time-buyer',
    });
    expect(bought.subscriptionId).toBeNull();
    expect(await entitlements('one-time-buyer')).toEqual([]);
    const payment = await f
      .get(InvoicePaymentsService)
      .createPayment(f.scope, { amountMinor: 20000, invoiceId: bought.invoiceId });
    await f.get(TestHelpersService).settlePayment(f.scope, payment.id, 'succeeded');
    expect(await entitlements('one-time-buyer')).toEqual([
      { lookupKey: 'lifetime-perk', invoiceId: bought.invoiceId, subscriptionId: null },
    ]);
    // Nobody by that reference: not found (the route's 404).
    await expect(
      f.get(CustomersService).getByExternalId(f.scope, 'nobody-here'),
    ).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    // For ever: a benefit the product gains later is held by those who bought it once.
    await products().attachBenefit(f.scope, product.id, (await perk('lifetime-extra')).id);
    expect((await entitlements('one-time-buyer')).map((e) => e.lookupKey).sort()).toEqual([
      'lifetime-extra',
      'lifetime-perk',
    ]);
  });
});
