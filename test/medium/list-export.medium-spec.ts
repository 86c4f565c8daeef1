import { DataSource } from 'typeorm';

import { createdRange } from '../../src/common/http/list-filters';
import { countUpTo, keysetBatches } from '../../src/database/list-export';
import { PaymentsService } from '../../src/payments';
import { createTestContext, insertApp, TestContext } from '../support/test-context';

/**
 * The reading half of the CSV exports (decisions section 20) on a real
 * database: the bounded count, and keyset batches that visit every row
 * once in the list's order, even where creation times differ only in their
 * microseconds (a JavaScript Date keeps milliseconds) or are equal; and the
 * Dhaka-day range and search as the payments service applies them.
 */
describe('list exports read every row once, in order (medium tier)', () => {
  let c: TestContext;
  let appId: number;
  let customerId: number;
  let expected: number[];

  beforeAll(async () => {
    c = await createTestContext();
    appId = await insertApp(c.db, 'Export app');
    const { rows } = await c.db.query(
      `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'TEST', 'exported') RETURNING id`,
      [appId],
    );
    customerId = Number(rows[0].id);
    // 37 payments: pairs 1 microsecond apart, and runs of equal times (id breaks the tie).
    await c.db.query(
      `INSERT INTO payments (app_id, mode, reference, status, amount_minor, gateway, customer_id, expires_at, created_at)
       SELECT $1, 'TEST', 'pay_export_' || g, 'PENDING', 1000 + g, 'sandbox', $2, now(),
              timestamptz '2025-03-10T17:59:59.999990Z' + ((g / 3) * interval '1 microsecond')
         FROM generate_series(1, 37) g`,
      [appId, customerId],
    );
    expected = (
      await c.db.query(
        `SELECT p.id FROM payments p WHERE p.app_id = $1 ORDER BY p.created_at DESC, p.id DESC`,
        [appId],
      )
    ).rows.map((r: { id: string }) => Number(r.id));
  });
  afterAll(() => c.close());

  const query = () =>
    c.app
      .get(DataSource)
      .createQueryBuilder()
      .select('p')
      .from('Payment', 'p')
      .where('p.appId = :appId AND p.mode = :mode', { appId, mode: 'TEST' });

  it.each([1, 2, 3, 4, 7, 36, 37, 100])(
    'batches of %i visit all 37 rows once, newest first',
    async (size) => {
      const seen: number[] = [];
      let batches = 0;
      for await (const batch of keysetBatches(query(), 'p', size)) {
        expect(batch.length).toBeLessThanOrEqual(size);
        seen.push(...batch.map((p) => Number((p as { id: number }).id)));
        batches++;
      }
      expect(seen).toEqual(expected);
      // A full last batch is followed by one more (empty) read, which yields nothing.
      expect(batches).toBe(Math.ceil(37 / size));
    },
  );

  it('counts at most limit + 1', async () => {
    const em = c.app.get(DataSource).manager;
    expect(await countUpTo(em, query(), 'p', 10)).toBe(11);
    expect(await countUpTo(em, query(), 'p', 36)).toBe(37);
    expect(await countUpTo(em, query(), 'p', 37)).toBe(37);
    expect(await countUpTo(em, query(), 'p', 100_000)).toBe(37);
  });

  it('the payments service exports a Dhaka day: 17:59:59.999999Z is still 10 March, 18:00Z is 11 March', async () => {
    const payments = c.app.get(PaymentsService);
    const scope = { appId, mode: 'TEST' as const };
    const collect = async (from: string, to: string) => {
      const { count, batches } = await payments.exportOf(scope, { from, to }, 100);
      const ids: number[] = [];
      for await (const batch of batches) ids.push(...batch.map((r) => r.payment.id));
      expect(ids).toHaveLength(count);
      return ids;
    };
    const { since, until } = createdRange('2025-03-11', '2025-03-11');
    expect(since?.toISOString()).toBe('2025-03-10T18:00:00.000Z');
    const { rows } = await c.db.query(
      `SELECT p.id FROM payments p WHERE p.app_id = $1 AND p.created_at >= $2 AND p.created_at < $3
        ORDER BY p.created_at DESC, p.id DESC`,
      [appId, since, until],
    );
    const onThe11th = rows.map((r: { id: string }) => Number(r.id));
    expect(onThe11th.length).toBeGreaterThan(0);
    expect(onThe11th.length).toBeLessThan(37);
    expect(await collect('2025-03-11', '2025-03-11')).toEqual(onThe11th);
    expect(await collect('2025-03-10', '2025-03-10')).toEqual(
      expected.filter((id) => !onThe11th.includes(id)),
    );
    expect(await collect('2025-03-10', '2025-03-11')).toEqual(expected);
    // Searching by a customer's reference, within the range.
    const { batches } = await payments.exportOf(scope, { q: 'exported' }, 100);
    let n = 0;
    for await (const batch of batches) n += batch.length;
    expect(n).toBe(37);
  });
});
