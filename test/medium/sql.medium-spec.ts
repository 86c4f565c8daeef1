import { DataSource, EntityManager } from 'typeorm';

import { poolOf } from '../../src/database/hot-query';
import { sql } from '../../src/database/sql';
import { createTestContext, TestContext } from '../support/test-context';

/**
 * `sql()`, the one raw-SQL helper, sends a statement straight to pg
 * (TypeORM's per-query work skipped). Rows must be what pg gives on every run, outside and inside a
 * transaction, named or not; a statement whose shape changes must come back
 * in its new shape; errors must be pg's, and leave no connection behind.
 */
describe('sql() (statements sent straight to pg)', () => {
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
      expect(await sql(source.manager).rows(select, [])).toEqual(expected);
      expect(await sql(source.manager).prepared('hot_rows_probe_all', select, [])).toEqual(
        expected,
      );
      await inTransaction(async (em) => {
        expect(await sql(em).rows(select, [])).toEqual(expected);
        expect(await sql(em).prepared('hot_rows_probe_all', select, [])).toEqual(expected);
      });
    }
    const [row] = await sql(source.manager).rows<Record<string, unknown>>(
      `${select} LIMIT $1`,
      [1],
    );
    // Plain objects with the columns in order, as pg builds them.
    expect(Object.keys(row)).toEqual(['id', 'at', 'doc', 'note']);
    expect(row.at).toBeNull();
  });

  it('a statement whose columns change comes back in the new shape, types parsed anew', async () => {
    await c.db.query(`CREATE TABLE hot_rows_shape (a int)`);
    await c.db.query(`INSERT INTO hot_rows_shape VALUES (7)`);
    const all = `SELECT * FROM hot_rows_shape`;
    expect(await sql(source.manager).rows(all, [])).toEqual([{ a: 7 }]);
    expect(await sql(source.manager).rows(all, [])).toEqual([{ a: 7 }]);
    await c.db.query(`ALTER TABLE hot_rows_shape ADD COLUMN b text DEFAULT 'x'`);
    expect(await sql(source.manager).rows(all, [])).toEqual([{ a: 7, b: 'x' }]);
    // Same names, another type: the text '7' becomes the number 7 once the column is an integer.
    await c.db.query(`ALTER TABLE hot_rows_shape ALTER COLUMN a TYPE text`);
    expect(await sql(source.manager).rows(all, [])).toEqual([{ a: '7', b: 'x' }]);
    await c.db.query(`ALTER TABLE hot_rows_shape ALTER COLUMN a TYPE bigint USING a::bigint`);
    expect(await sql(source.manager).rows(all, [])).toEqual([{ a: 7, b: 'x' }]);
  });

  it('errors are pg’s own (code, caller in the stack) and give every pooled connection back', async () => {
    const duplicate = `INSERT INTO hot_rows_probe (id) VALUES (2) RETURNING id`;
    const pool = poolOf(source);
    const size = (pool as unknown as { options: { max: number } }).options.max;
    for (let i = 0; i < size + 2; i++) {
      const err = await sql(source.manager)
        .rows(duplicate, [])
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: '23505', constraint: 'hot_rows_probe_pkey' });
      expect((err as Error).stack).toContain('at runStatement');
    }
    expect(pool.waitingCount).toBe(0);
    expect(
      await sql(source.manager).rows(`SELECT count(*)::int AS n FROM hot_rows_probe`, []),
    ).toEqual([{ n: 2 }]);

    // Inside a transaction: the error ends it (rolled back), the row written before it is gone.
    const failed = await inTransaction(async (em) => {
      await sql(em).rows(`INSERT INTO hot_rows_probe (id) VALUES (3) RETURNING id`, []);
      await sql(em).rows(duplicate, []);
    }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: '23505' });
    expect((failed as Error).stack).toContain('at runStatement');
    const { rows } = await c.db.query(`SELECT id FROM hot_rows_probe WHERE id = 3`);
    expect(rows).toEqual([]);
  });

  it('run() answers how many rows a statement changed; one() the first row or undefined', async () => {
    await c.db.query(`CREATE TABLE sql_counts (id int PRIMARY KEY, n int)`);
    await c.db.query(`INSERT INTO sql_counts SELECT g, 0 FROM generate_series(1, 5) g`);
    expect(
      await sql(source.manager).run('UPDATE sql_counts SET n = n + 1 WHERE id <= $1', [3]),
    ).toBe(3);
    expect(await sql(source.manager).run('DELETE FROM sql_counts WHERE id > $1', [99])).toBe(0);
    await inTransaction(async (em) => {
      expect(await sql(em).run('DELETE FROM sql_counts WHERE id = ANY($1::int[])', [[4, 5]])).toBe(
        2,
      );
      expect(await sql(em).one('SELECT count(*)::int AS n FROM sql_counts', [])).toEqual({ n: 3 });
    });
    expect(
      await sql(source.manager).one('SELECT n FROM sql_counts WHERE id = $1', [42]),
    ).toBeUndefined();
    expect(await sql(source.manager).one('SELECT n FROM sql_counts WHERE id = $1', [1])).toEqual({
      n: 1,
    });
  });
});
