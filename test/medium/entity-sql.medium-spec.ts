import { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { EntitySql } from '../../src/database/entity-sql';
import { Payment } from '../../src/payments/payment.entity';
import { createTestContext, insertApp, TestContext } from '../support/test-context';

/**
 * EntitySql's INSERT (the hot path's plain SQL) must store exactly what
 * TypeORM's own insert stores for the same entity fields: bigint columns
 * through their transformer, jsonb, time stamps, nulls, and columns left
 * out taking their database defaults.
 */
describe('EntitySql.insert writes what TypeORM would', () => {
  let c: TestContext;
  let dataSource: DataSource;
  let appId: number;
  let customerId: number;
  beforeAll(async () => {
    c = await createTestContext();
    dataSource = c.app.get(DataSource);
    appId = await insertApp(c.db);
    const { rows } = await c.db.query(
      `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'TEST', 'c-1') RETURNING id`,
      [appId],
    );
    customerId = Number(rows[0].id);
  });
  afterAll(() => c.close());

  const at = new Date('2026-11-26T09:20:05.241Z');
  const fields = (reference: string): Partial<Payment> => ({
    appId,
    mode: 'TEST',
    reference,
    status: 'PENDING',
    amountMinor: 9_007_199_254_740_991,
    excessMinor: 0,
    amountRefundedMinor: 0,
    currency: 'BDT',
    gateway: 'sandbox',
    customerId,
    gatewaySessionId: null,
    checkoutUrl: null,
    successUrl: 'https://shop.example/ok?a=1&b=ট',
    metadata: { order: 'o-1', lines: [1, 'two', { three: null }], nested: { ok: true } },
    description: null,
    expiresAt: new Date(at.getTime() + 30 * 60_000),
    createdAt: at,
    updatedAt: at,
  });

  /** TypeORM's own insert (its partial-entity type does not take a Record<string, unknown> field). */
  const typeormInsert = (f: Partial<Payment>) =>
    dataSource.getRepository(Payment).insert(f as QueryDeepPartialEntity<Payment>);

  /** The stored row as PostgreSQL has it (text forms), without the columns that must differ. */
  const stored = async (reference: string) => {
    const { rows } = await c.db.query(
      `SELECT to_jsonb(p) - 'id' - 'reference' AS row FROM payments p WHERE reference = $1`,
      [reference],
    );
    expect(rows).toHaveLength(1);
    return rows[0].row as Record<string, unknown>;
  };

  it('the same row as repository.insert, and the same entity back as a find', async () => {
    const sql = EntitySql.of(dataSource, Payment);
    const ours = await sql.insert(dataSource.manager, fields('pay_entity_sql_ours'));
    await typeormInsert(fields('pay_entity_sql_typeorm'));
    expect(await stored('pay_entity_sql_ours')).toEqual(await stored('pay_entity_sql_typeorm'));

    const found = await dataSource.getRepository(Payment).findOneByOrFail({ id: ours.id });
    expect(ours).toBeInstanceOf(Payment);
    expect(ours).toEqual(found);
    expect(ours.amountMinor).toBe(9_007_199_254_740_991);
    expect(ours.metadata).toEqual(fields('x').metadata);
  });

  it('columns left out take their defaults, each set of columns with its own statement', async () => {
    const sql = EntitySql.of(dataSource, Payment);
    const { metadata: _m, successUrl: _s, excessMinor: _e, ...fewer } = fields('pay_fewer_ours');
    await sql.insert(dataSource.manager, fewer);
    await typeormInsert({ ...fewer, reference: 'pay_fewer_typeorm' });
    const ours = await stored('pay_fewer_ours');
    expect(ours).toEqual(await stored('pay_fewer_typeorm'));
    expect(ours).toMatchObject({ metadata: null, success_url: null, excess_minor: 0 });
    // The fuller statement compiled earlier still writes every column it names.
    await sql.insert(dataSource.manager, fields('pay_full_again'));
    expect((await stored('pay_full_again')).metadata).toEqual(fields('x').metadata);
  });

  it('insertMany: one statement for several rows, stored as TypeORM stores them, returned in the order given', async () => {
    const sql = EntitySql.of(dataSource, Payment);
    const refs = ['pay_many_c', 'pay_many_a', 'pay_many_b'];
    const ours = await sql.insertMany(
      dataSource.manager,
      refs.map((r, i) => ({ ...fields(r), amountMinor: 100 + i })),
    );
    expect(ours.map((p) => [p.reference, p.amountMinor])).toEqual([
      ['pay_many_c', 100],
      ['pay_many_a', 101],
      ['pay_many_b', 102],
    ]);
    await typeormInsert({ ...fields('pay_many_typeorm'), amountMinor: 100 });
    expect(await stored('pay_many_c')).toEqual(await stored('pay_many_typeorm'));
    for (const p of ours)
      expect(p).toEqual(await dataSource.getRepository(Payment).findOneByOrFail({ id: p.id }));
  });

  it('insertMany with ignoreConflicts leaves out a row that breaks a unique key (ON CONFLICT DO NOTHING) and answers the rows written', async () => {
    const sql = EntitySql.of(dataSource, Payment);
    await sql.insert(dataSource.manager, { ...fields('pay_ignore_taken'), amountMinor: 1 });
    const written = await sql.insertMany(
      dataSource.manager,
      ['pay_ignore_new', 'pay_ignore_taken'].map((r) => ({ ...fields(r), amountMinor: 2 })),
      { ignoreConflicts: true },
    );
    expect(written.map((p) => p.reference)).toEqual(['pay_ignore_new']);
    expect((await stored('pay_ignore_taken')).amount_minor).toBe(1);
    // Without it, the same conflict is PostgreSQL's unique_violation.
    await expect(
      sql.insertMany(dataSource.manager, [fields('pay_ignore_taken')]),
    ).rejects.toMatchObject({ code: '23505' });
  });

  it('insertMany refuses rows that give different fields, and writes none of them', async () => {
    const sql = EntitySql.of(dataSource, Payment);
    const { metadata: _m, ...fewer } = fields('pay_mixed_b');
    await expect(
      sql.insertMany(dataSource.manager, [fields('pay_mixed_a'), fewer]),
    ).rejects.toThrow(/same fields/);
    const { rows } = await c.db.query(
      `SELECT count(*)::int AS n FROM payments WHERE reference LIKE 'pay_mixed_%'`,
    );
    expect(rows[0].n).toBe(0);
  });
});
