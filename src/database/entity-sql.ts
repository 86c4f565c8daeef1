import type {
  DataSource,
  Driver,
  EntityManager,
  EntityMetadata,
  EntityTarget,
  ObjectLiteral,
  ValueTransformer,
} from 'typeorm';

import { sql as statements } from './sql';

/** TypeORM's column metadata, named through the public `EntityMetadata` (its root exports no `ColumnMetadata`). */
type ColumnMetadata = EntityMetadata['columns'][number];

/**
 * A value through a column's transformer on its way to the database, as
 * TypeORM applies one (`ApplyValueTransformers.transformTo`, which its root
 * does not export): a list of transformers in order, first to last. Its
 * other case, a `FindOperator` in a `where`, never reaches an insert.
 */
function transformTo(transformer: ValueTransformer | ValueTransformer[], value: unknown): unknown {
  if (!Array.isArray(transformer)) return transformer.to(value);
  let out = value;
  for (const t of transformer) out = t.to(out);
  return out;
}

/**
 * Column types whose values TypeORM takes exactly as pg returns them; every
 * other column (or one with a transformer) goes through the driver's own
 * conversion, so entities come out as TypeORM's would (`date` as
 * 'YYYY-MM-DD', bigint through its transformer, ...).
 */
const AS_PG_RETURNS = new Set([
  'varchar',
  'character varying',
  'text',
  'int',
  'integer',
  'int4',
  'smallint',
  'boolean',
  'bool',
  'uuid',
  'json',
  'jsonb',
  'timestamptz',
  'timestamp with time zone',
]);

/**
 * Column types pg takes as TypeORM hands them over: for these,
 * `preparePersistentValue` only applies the column's transformer (and, on
 * its way to that answer, builds a fresh array per column per call), so
 * `insert` applies the transformer itself. Every other type goes through
 * the driver, as TypeORM's own insert would.
 */
const AS_PG_TAKES = new Set([
  'varchar',
  'character varying',
  'text',
  'int',
  'integer',
  'int4',
  'smallint',
  'bigint',
  'int8',
  'uuid',
]);

/**
 * Plain SQL for an entity's hot paths, compiled once from its TypeORM
 * metadata: the select list (`"db_name" AS "propertyName"`), rows turned
 * into entities by assigning the columns through their transformers, and an
 * INSERT ... RETURNING. Skips TypeORM's per-call query building and
 * hydration, which profiling showed to be the largest single cost per
 * request, and TypeORM's per-query work (see `sql()`, sql.ts); the SQL and the
 * entities are the same.
 */
export class EntitySql<T extends ObjectLiteral> {
  /** `"db_name" AS "propertyName", ...` of every selected column. */
  readonly selectList: string;
  readonly table: string;
  /** Columns whose database value TypeORM converts (a transformer, or a type such as `date`). */
  private readonly converted: ColumnMetadata[];
  private readonly writable: { column: ColumnMetadata; write: (value: unknown) => unknown }[];
  /** INSERT statements by the set of columns given (bit i: the i-th writable column) and row count. */
  private readonly inserts = new Map<string, string>();
  private readonly target: new () => T;
  private readonly driver: Driver;

  private constructor(meta: EntityMetadata) {
    const columns = meta.columns.filter((c) => c.isSelect);
    this.table = `"${meta.tableName}"`;
    this.selectList = columns.map((c) => `"${c.databaseName}" AS "${c.propertyName}"`).join(', ');
    this.converted = columns.filter(
      (c) => c.transformer || !AS_PG_RETURNS.has(String(c.type).toLowerCase()),
    );
    this.driver = meta.connection.driver;
    this.writable = meta.columns
      .filter((c) => !c.isGenerated && c.isInsert)
      .map((column) => ({ column, write: this.writerOf(column) }));
    // insert() keys its statements by one number, a bit per writable column.
    if (this.writable.length > 53)
      throw new Error(`EntitySql: ${meta.tableName} has more than 53 writable columns`);
    this.target = meta.target as new () => T;
  }

  /** How a value of the column is handed to pg: as TypeORM's driver would. */
  private writerOf(column: ColumnMetadata): (value: unknown) => unknown {
    if (!AS_PG_TAKES.has(String(column.type).toLowerCase()))
      return (value) => this.driver.preparePersistentValue(value, column);
    const transformer = column.transformer;
    if (!transformer) return (value) => value;
    return (value) => transformTo(transformer, value);
  }

  private static readonly compiled = new WeakMap<object, EntitySql<ObjectLiteral>>();

  /** The compiled SQL of an entity (once per data source and entity). */
  static of<E extends ObjectLiteral>(
    dataSource: DataSource,
    entity: EntityTarget<E>,
  ): EntitySql<E> {
    const meta = dataSource.getMetadata(entity);
    let sql = EntitySql.compiled.get(meta);
    if (!sql) {
      sql = new EntitySql(meta);
      EntitySql.compiled.set(meta, sql);
    }
    return sql as unknown as EntitySql<E>;
  }

  /** An entity from a row selected with `selectList` (or RETURNING it). */
  hydrate(row: Record<string, unknown>): T {
    for (const c of this.converted)
      row[c.propertyName] = this.driver.prepareHydratedValue(row[c.propertyName], c);
    return Object.assign(new this.target(), row);
  }

  /**
   * Rows of a statement whose select list (or RETURNING) is `selectList`, as
   * entities, sent straight to pg (`sql()`; `name` prepares it).
   */
  async rows(em: EntityManager, sql: string, params: unknown[], name?: string): Promise<T[]> {
    const rows = name
      ? await statements(em).prepared<Record<string, unknown>>(name, sql, params)
      : await statements(em).rows<Record<string, unknown>>(sql, params);
    return rows.map((r) => this.hydrate(r));
  }

  /** INSERT of the fields given (generated columns left to the database) RETURNING the row. */
  async insert(em: EntityManager, fields: Partial<T>): Promise<T> {
    const [row] = await this.insertMany(em, [fields]);
    return row;
  }

  /**
   * One INSERT of several rows, each giving the same fields, RETURNING them
   * in the order given (PostgreSQL returns a VALUES list's rows in its
   * order, as TypeORM's own multi-row insert also takes for granted).
   * `ignoreConflicts`: ON CONFLICT DO NOTHING (TypeORM's `orIgnore()`): a row
   * that would break a unique key is left out, and only the rows written
   * come back.
   */
  async insertMany(
    em: EntityManager,
    rows: Partial<T>[],
    options: { ignoreConflicts?: boolean } = {},
  ): Promise<T[]> {
    if (rows.length === 0) return [];
    const values: unknown[] = [];
    // Which columns are given, as the bits of one number (exact up to 53 columns).
    let given = -1;
    for (const fields of rows) {
      let these = 0;
      for (let i = 0; i < this.writable.length; i++) {
        const { column, write } = this.writable[i];
        const value = (fields as Record<string, unknown>)[column.propertyName];
        if (value === undefined) continue;
        these += 2 ** i;
        values.push(write(value));
      }
      if (given !== -1 && these !== given)
        throw new Error(
          `EntitySql: rows inserted into ${this.table} together must give the same fields`,
        );
      given = these;
    }
    const key = `${given}:${rows.length}${options.ignoreConflicts ? ':ignore' : ''}`;
    let sql = this.inserts.get(key);
    if (sql === undefined) {
      const names = this.writable
        .filter((_, i) => Math.floor(given / 2 ** i) % 2 === 1)
        .map(({ column }) => `"${column.databaseName}"`);
      const tuples = rows.map(
        (_, r) => `(${names.map((_, i) => `$${r * names.length + i + 1}`).join(', ')})`,
      );
      const conflict = options.ignoreConflicts ? ' ON CONFLICT DO NOTHING' : '';
      sql = `INSERT INTO ${this.table} (${names.join(', ')}) VALUES ${tuples.join(', ')}${conflict} RETURNING ${this.selectList}`;
      // Column sets and row counts in use are few; a caller inserting ever new counts cannot grow it for ever.
      if (this.inserts.size >= 200) this.inserts.clear();
      this.inserts.set(key, sql);
    }
    return this.rows(em, sql, values);
  }
}
