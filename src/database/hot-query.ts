import { Query, type FieldDef, type Pool, type PoolClient, type QueryResult } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

/** A data source's pg pool (where statements outside a transaction go). */
export const poolOf = (source: DataSource): Pool =>
  (source.driver as PostgresDriver).master as Pool;

/**
 * Rows of one statement (a SELECT, or any statement with RETURNING), sent
 * straight to pg: inside a
 * transaction on the transaction's connection, outside one on TypeORM's
 * pool. Skips what TypeORM does around every query (a query runner per
 * call outside a transaction, before/after query events, logging hooks),
 * which profiling put at tens of microseconds per statement. Same SQL, same
 * connection, same transaction; errors are pg's own (codes as TypeORM's
 * `driverError` carries them).
 *
 * `name` makes it a prepared statement, parsed and planned once per
 * connection: only for statements whose text never varies.
 */
export async function hotRows<R>(
  em: EntityManager,
  text: string,
  params: unknown[],
  name?: string,
): Promise<R[]> {
  const runner = em.queryRunner as
    (PostgresQueryRunner & { databaseConnection?: PoolClient }) | undefined;
  const query = new HotQuery(text, params, name);
  try {
    const result =
      runner?.isTransactionActive && runner.databaseConnection
        ? await onConnection(runner.databaseConnection, query)
        : ((await poolOf(em.connection).query(query)) as unknown as QueryResult);
    return result.rows as R[];
  } catch (err) {
    // As pg does for its own promises: a stack that leads back to the caller, not the socket.
    if (err instanceof Error) Error.captureStackTrace(err);
    throw err;
  }
}

/** A submitted query's result from one connection (pg answers a query object by its callback). */
function onConnection(client: PoolClient, query: HotQuery): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    query.callback = (err: Error | null, result: QueryResult) =>
      err ? reject(err) : resolve(result);
    client.query(query);
  });
}

/**
 * What pg's query keeps of the row shape a statement returns: private fields
 * of pg's Result (pg is pinned by the lockfile; test/medium/hot-query checks
 * the rows and the reuse against the pg installed).
 */
interface PgResult {
  fields: FieldDef[];
  /** The client's type parsers (a TypeOverrides object per client). */
  _types: unknown;
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
  addFields(fields: FieldDef[]): void;
}

interface RowShape {
  fields: FieldDef[];
  parsers: unknown[];
  emptyRow: Record<string, null>;
}

/**
 * Row shapes by statement text, per connection: pg gives every client its
 * own type parsers (a TypeOverrides object, which is the key here), so a
 * shape is reused only on the connection that described it. Each
 * connection's map is forgotten all at once past SHAPES_KEPT statements
 * (hot statements are few), and with the connection.
 */
const shapesByTypes = new WeakMap<object, Map<string, RowShape>>();
const SHAPES_KEPT = 500;

/**
 * pg's query, remembering the row shape each statement text returned. For
 * every statement that returns rows pg turns the row description into
 * per-column parsers and an empty row object built key by key on a
 * null-prototype object and then spread: ~10 us for a 30-column row on a
 * 2-core VM, more than parsing the row itself (bench/README.md, "Row descriptions"). When the description matches the one this connection saw last for
 * the same text (names, types, formats; a migration that changes it simply
 * misses), the parsers and empty row are reused; rows are then parsed by pg
 * as before. Also skips pg's copy of a query config object (a named
 * statement's name is set on the query itself).
 */
class HotQuery extends Query {
  declare callback: ((err: Error | null, result: QueryResult) => void) | undefined;
  declare text: string;
  declare name: string | undefined;

  constructor(text: string, values: unknown[], name?: string) {
    super(text, values);
    if (name) this.name = name;
  }

  handleRowDescription(msg: { fields: FieldDef[] }): void {
    const self = this as unknown as {
      _checkForMultirow(): void;
      _result: PgResult;
      _accumulateRows: boolean;
    };
    self._checkForMultirow();
    const result = self._result;
    const owner = typeof result._types === 'object' && result._types ? result._types : undefined;
    let shapes = owner && shapesByTypes.get(owner);
    const known = shapes?.get(this.text);
    if (known && sameFields(known.fields, msg.fields)) {
      result.fields = msg.fields;
      result._parsers = known.parsers;
      result._prebuiltEmptyResultObject = known.emptyRow;
    } else {
      result.addFields(msg.fields);
      if (owner && result._parsers && result._prebuiltEmptyResultObject) {
        if (!shapes) shapesByTypes.set(owner, (shapes = new Map()));
        if (shapes.size >= SHAPES_KEPT) shapes.clear();
        shapes.set(this.text, {
          fields: msg.fields,
          parsers: result._parsers,
          emptyRow: result._prebuiltEmptyResultObject,
        });
      }
    }
    self._accumulateRows = Boolean(this.callback) || !this.listeners('row').length;
  }
}

function sameFields(a: FieldDef[], b: FieldDef[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.name !== y.name || x.dataTypeID !== y.dataTypeID || x.format !== y.format) return false;
  }
  return true;
}
