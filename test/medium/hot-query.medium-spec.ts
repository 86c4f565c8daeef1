import { DataSource, EntityManager } from 'typeorm';
import { hotRows, poolOf } from '../../src/database/hot-query';
import { createTestContext, TestContext } from '../support/test-context';

/**
 * hotRows sends a statement straight to pg (TypeORM's per-query work
 * skipped). Rows must be what pg gives on every run, outside and inside a
 * transaction, named or not; a statement whose shape changes must come back
 * in its new shape; errors must be pg's, and leave no connection behind.
 */
describe('hotRows (statements sent straight to pg)', () => {
  let c: TestContext;
  let source: DataSource;
  beforeAll(async () => {
    c = await createTestContext();
    source = c.app.get(DataSource);
    await c.db.query(
      `CREATE TABLE hot_rows_probe (id bigint PRIMARY KEY, at timestamptz, doc jsonb, note text)`,
    );
    await c.db.query(
      `INSERT INTO hot_rows_probe VALUES
         (9007199254740991, '2026-11-27 09:20:05.241+00', '{"a":[1,"two",null]}', NULL),
         (2, NULL, NULL, 'ট')`,
    );
  });
  afterAll(() => c.close());

  const select = `SELECT id, at, doc, note FROM hot_rows_probe ORDER BY id`;
  const expected = [
    { id: 2, at: null, doc: null, note: 'ট' },
    {
      id: 9007199254740991,
      at: new Date('2026-11-27T09:20:05.241Z'),
      doc: { a: [1, 'two', null] },
      note: null,
    },
  ];
  const inTransaction = <T>(fn: (em: EntityManager) => Promise<T>) => source.transaction(fn);

  it('gives pg’s rows on the first and every later run: pooled, in a transaction, prepared', async () => {
    for (let run = 0; run < 3; run++) {
      expect(await hotRows(source.manager, select, [])).toEqual(expected);
      expect(await hotRows(source.manager, select, [], 'hot_rows_probe_all')).toEqual(expected);
      await inTransaction(async (em) => {
        expect(await hotRows(em, select, [])).toEqual(expected);
        expect(await hotRows(em, select, [], 'hot_rows_probe_all')).toEqual(expected);
      });
    }
    const [row] = await hotRows<Record<string, unknown>>(source.manager, `${select} LIMIT $1`, [1]);
    // Plain objects with the columns in order, as pg builds them.
    expect(Object.keys(row)).toEqual(['id', 'at', 'doc', 'note']);
    expect(row.at).toBeNull();
  });

  it('a statement whose columns change comes back in the new shape, types parsed anew', async () => {
    await c.db.query(`CREATE TABLE hot_rows_shape (a int)`);
    await c.db.query(`INSERT INTO hot_rows_shape VALUES (7)`);
    const all = `SELECT * FROM hot_rows_shape`;
    expect(await hotRows(source.manager, all, [])).toEqual([{ a: 7 }]);
    expect(await hotRows(source.manager, all, [])).toEqual([{ a: 7 }]);
    await c.db.query(`ALTER TABLE hot_rows_shape ADD COLUMN b text DEFAULT 'x'`);
    expect(await hotRows(source.manager, all, [])).toEqual([{ a: 7, b: 'x' }]);
    // Same names, another type: the text '7' becomes the number 7 once the column is an integer.
    await c.db.query(`ALTER TABLE hot_rows_shape ALTER COLUMN a TYPE text`);
    expect(await hotRows(source.manager, all, [])).toEqual([{ a: '7', b: 'x' }]);
    await c.db.query(`ALTER TABLE hot_rows_shape ALTER COLUMN a TYPE bigint USING a::bigint`);
    expect(await hotRows(source.manager, all, [])).toEqual([{ a: 7, b: 'x' }]);
  });

  it('errors are pg’s own (code, caller in the stack) and give every pooled connection back', async () => {
    const duplicate = `INSERT INTO hot_rows_probe (id) VALUES (2) RETURNING id`;
    const pool = poolOf(source);
    const size = (pool as unknown as { options: { max: number } }).options.max;
    for (let i = 0; i < size + 2; i++) {
      const err = await hotRows(source.manager, duplicate, []).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: '23505', constraint: 'hot_rows_probe_pkey' });
      expect((err as Error).stack).toContain('at hotRows');
    }
    expect(pool.waitingCount).toBe(0);
    expect(
      await hotRows(source.manager, `SELECT count(*)::int AS n FROM hot_rows_probe`, []),
    ).toEqual([{ n: 2 }]);

    // Inside a transaction: the error ends it (rolled back), the row written before it is gone.
    const failed = await inTransaction(async (em) => {
      await hotRows(em, `INSERT INTO hot_rows_probe (id) VALUES (3) RETURNING id`, []);
      await hotRows(em, duplicate, []);
    }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: '23505' });
    expect((failed as Error).stack).toContain('at hotRows');
    const { rows } = await c.db.query(`SELECT id FROM hot_rows_probe WHERE id = 3`);
    expect(rows).toEqual([]);
  });
});
