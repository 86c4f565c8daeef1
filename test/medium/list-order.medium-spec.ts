import { DataSource, ObjectLiteral, SelectQueryBuilder } from 'typeorm';

import { orderForPage, PageQuery } from '../../src/common/http/pagination';
import { INVOICE_SORT_FIELDS } from '../../src/invoices/dto/invoice.dto';
import { PAYMENT_SORT_FIELDS } from '../../src/payments/dto/payment.dto';
import { REFUND_SORT_FIELDS } from '../../src/refunds/dto/refund.dto';
import { SUBSCRIPTION_SORT_FIELDS } from '../../src/subscriptions/dto/subscription.dto';
import { EVENT_SORT_FIELDS } from '../../src/webhooks/api/dto/event.dto';
import { DELIVERY_SORT_FIELDS } from '../../src/webhooks/api/dto/webhook-delivery.dto';
import { createTestContext, insertApp, TestContext } from '../support/test-context';

/**
 * Every list's default order (newest first, id as the tie-breaker) is served
 * by an index: with sorting priced out (enable_sort = off) the plan of each
 * default list query has no Sort node, so no request reads and sorts a
 * whole partition.
 */
describe('list queries are served by indexes (medium tier)', () => {
  let c: TestContext;
  let appId: number;
  beforeAll(async () => {
    c = await createTestContext();
    appId = await insertApp(c.db);
  });
  afterAll(() => c.close());

  async function planOf<T extends ObjectLiteral>(
    qb: SelectQueryBuilder<T>,
    alias: string,
    query: PageQuery = {},
    unique: string[] = [],
  ) {
    orderForPage(qb, alias, query, unique);
    qb.limit(20);
    const [sql, params] = qb.getQueryAndParameters();
    const client = await c.db.connect();
    try {
      await client.query('SET enable_sort = off');
      await client.query('SET enable_seqscan = off');
      const rows = await client.query(`EXPLAIN ${sql}`, params);
      return rows.rows.map((r) => r['QUERY PLAN'] as string).join('\n');
    } finally {
      await client.query('RESET ALL');
      client.release();
    }
  }

  /** The list query of `table`'s entity: one partition, or every row (admin search). */
  function listOf(table: string, partitioned: boolean) {
    const ds = c.app.get(DataSource);
    const meta = ds.entityMetadatas.find((m) => m.tableName === table)!;
    const qb = ds.createQueryBuilder(meta.target, 'x').select('x.id');
    if (partitioned) qb.where('x.appId = :appId AND x.mode = :mode', { appId, mode: 'TEST' });
    return qb;
  }

  it.each([
    ['invoices (app list)', 'invoices', true],
    ['payments (app list)', 'payments', true],
    ['events (app list)', 'events', true],
    ['subscriptions (app list)', 'subscriptions', true],
    ['refunds (partition)', 'refunds', true],
    ['products (app list)', 'products', true],
    ['webhook deliveries (app filter)', 'webhook_deliveries', true],
    ['invoices (admin search, no filter)', 'invoices', false],
    ['payments (admin search, no filter)', 'payments', false],
  ])('%s', async (_name, table, partitioned) => {
    const plan = await planOf(listOf(table, partitioned), 'x');
    expect(plan).not.toMatch(/Sort/);
    expect(plan).toMatch(/Index/);
  });

  // Every documented sortBy of the lists that grow without bound, both
  // directions, within one partition (and createdAt/id across partitions).
  const sorts: [string, readonly string[], string[]][] = [
    ['invoices', INVOICE_SORT_FIELDS, ['number']],
    ['payments', PAYMENT_SORT_FIELDS, []],
    ['events', EVENT_SORT_FIELDS, []],
    ['webhook_deliveries', DELIVERY_SORT_FIELDS, []],
    ['subscriptions', SUBSCRIPTION_SORT_FIELDS, []],
    ['refunds', REFUND_SORT_FIELDS, []],
  ];
  const cases = sorts.flatMap(([table, fields, unique]) =>
    fields.flatMap((sortBy) =>
      (['asc', 'desc'] as const).map((order) => [table, sortBy, order, unique] as const),
    ),
  );
  it.each(cases)('%s sorted by %s %s, one partition', async (table, sortBy, order, unique) => {
    const plan = await planOf(listOf(table, true), 'x', { sortBy, order }, unique);
    expect(plan).not.toMatch(/Sort/);
    expect(plan).toMatch(/Index/);
  });
  it.each(
    // Events have no cross-app list.
    ['invoices', 'payments', 'webhook_deliveries', 'subscriptions', 'refunds'].flatMap((table) =>
      ['createdAt', 'id'].map((sortBy) => [table, sortBy] as const),
    ),
  )('%s sorted by %s across partitions', async (table, sortBy) => {
    const plan = await planOf(listOf(table, false), 'x', { sortBy });
    expect(plan).not.toMatch(/Sort/);
  });
});
