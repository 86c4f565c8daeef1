import { Logger } from '@nestjs/common';
import { Client, types } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';

import { loadMigrations } from '../../migrations';
import { SnakeNamingStrategy } from './snake-naming.strategy';
import { timestamptzParser } from './timestamptz-parser';

// BIGINT (int8) comes back as a JS number, refusing values a double cannot hold exactly.
types.setTypeParser(20, (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error('BIGINT value outside the safe integer range');
  return n;
});

// TIMESTAMPTZ (1184) in Joma's UTC sessions without pg's regular expressions; anything else as pg parses it.
types.setTypeParser(1184, timestamptzParser(types.getTypeParser(1184)));

const poolLogger = new Logger('Database');
let lastLoggedMs = 0;
/** At most one warning a second, whatever a failover throws at the pool. */
function onClientError(err: Error): void {
  const now = Date.now();
  if (now - lastLoggedMs < 1000) return;
  lastLoggedMs = now;
  const code = (err as { code?: unknown }).code;
  poolLogger.warn(`A database connection was lost${code ? ` (${String(code)})` : ''}`);
}

/** pg-pool's `onConnect` hook, for every connection of every pool (see `extra.onConnect` below). */
function watchConnection(client: Client): void {
  client.on('error', onClientError);
}

/**
 * pg's client, for every connection of every pool (pg-pool's `Client`
 * option, below): a connection whose server refused a write as read-only
 * (25006: it is a standby, or a primary being demoted in a failover) closes
 * itself. Its request fails with 503 (database-errors.ts), and the pool,
 * finding it closed when it comes back, opens a new one, which the load
 * balancer or PgBouncer sends to the primary of the moment. Without this, a
 * connection checked out by a transaction (TypeORM gives those back
 * without an error) would go back to the pool and answer 25006 to every
 * later request. (A statement outside a transaction already drops its
 * connection on any error: pg-pool's `query`.) The same for a connection
 * whose statement got no answer within pg's `query_timeout` (the read
 * replica's pool sets one): pg destroys its socket, but the pool would learn
 * that only at the socket's close, and could hand it out before.
 */
/** pg's error when a statement got no answer within `query_timeout`. */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

class ClosingWhenReadOnlyClient extends Client {
  override query(...args: unknown[]): never {
    const result: unknown = Reflect.apply(super.query, this, args);
    if (result instanceof Promise)
      result.catch((err: { code?: unknown; message?: unknown } | undefined) => {
        if (err?.code === '25006' || err?.message === QUERY_READ_TIMEOUT)
          this.end().catch(() => undefined);
      });
    return result as never;
  }
}

/** Longest a transaction may sit idle before PostgreSQL ends its session. */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** The key of a data source's `extra` saying whether `sql().prepared` names its statements. */
export const PREPARED_STATEMENTS = 'jomaPreparedStatements';

/** The one place that says how Joma talks to PostgreSQL. */
export function dataSourceOptions(
  url: string,
  opts: {
    poolSize?: number;
    applicationName?: string;
    /** Longest a statement may run (0 = no limit, for migrations). */
    statementTimeoutMs?: number;
    /** Longest a request waits for a free pooled connection before 503. */
    acquireTimeoutMs?: number;
    /**
     * `sql().prepared` as named prepared statements (the default); false
     * sends them unnamed, for a pooler that cannot keep a connection's named
     * statements (PgBouncer before 1.21 in transaction mode; DB_PREPARED_STATEMENTS).
     */
    preparedStatements?: boolean;
  } = {},
): DataSourceOptions {
  const statementTimeout = opts.statementTimeoutMs ?? 0;
  return {
    type: 'postgres',
    url,
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    migrations: loadMigrations(),
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    logging: false,
    entities: [],
    extra: {
      max: opts.poolSize ?? 10,
      // A connection, once opened, stays open (pg-pool closed one idle for 10 s):
      // a replica quiet for ten seconds met its next burst with none open, its
      // first requests waiting for new backends to start and warm their caches,
      // a p99 of 315-476 ms at ~100 requests/s on a 2-core VM (bench/README.md, "Connection pool"). At most `max` stay open; a broken one is dropped and
      // the next request opens another, as before.
      idleTimeoutMillis: 0,
      // pg's pipeline mode: a statement is written as soon as it is queried,
      // not after the previous one's answer. Statements awaited one by one
      // behave as before. (It refuses cursors and the `rows` option, which
      // Joma does not use.)
      pipeline: true,
      application_name: opts.applicationName ?? 'joma',
      // A transaction left idle (a bug, a stuck await) cannot hold locks for ever.
      options: `-c timezone=UTC -c statement_timeout=${statementTimeout} -c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT_MS}`,
      // pg-pool: waiting for a connection (queue included) gives up after this.
      connectionTimeoutMillis: opts.acquireTimeoutMs ?? 0,
      // A connection lost while checked out (the server terminated it, a
      // failover) makes pg's client emit 'error'; pg-pool listens only while
      // the client is idle, and an 'error' nobody hears ends the process.
      // Every client gets a listener for its whole life: the request using it
      // fails with its query (503, error-response.ts) and the pool drops it.
      onConnect: watchConnection,
      Client: ClosingWhenReadOnlyClient,
      // Read by `preparedStatementsOn` (hot-query.ts); pg ignores the key.
      [PREPARED_STATEMENTS]: opts.preparedStatements ?? true,
    },
  };
}

/** Longest a closing data source waits for the server to close a connection before cutting it off. */
const CLOSE_DEADLINE_MS = 5_000;

/**
 * A DataSource whose `destroy()` resolves only once every connection of its
 * pool has closed. TypeORM's destroy ends its pg pool, and pg-pool's `end()`
 * resolves as soon as it has asked each connection to close (a Terminate
 * written), not when the server has closed it: each session lives on for a
 * moment. A PostgreSQL stopped in that moment (the embedded server, stopped
 * right after `app.close()`) terminated the sessions still open (57P01), and
 * their connections, which had been let go already, logged a lost connection.
 * A connection the server does not close within CLOSE_DEADLINE_MS (a network
 * that no longer answers) is cut off, so a stop cannot hang on it.
 *
 * Its connections get Joma's `onConnect` hook (`watchConnection`), whatever
 * `options.extra` says: a data source built from another's options (the
 * worker lane's) tracks its own connections only.
 */
export class JomaDataSource extends DataSource {
  private readonly connections: Set<Client>;

  constructor(options: DataSourceOptions) {
    const connections = new Set<Client>();
    const extra = (options as { extra?: Record<string, unknown> }).extra;
    super({
      ...options,
      extra: {
        ...extra,
        onConnect: (client: Client) => {
          watchConnection(client);
          connections.add(client);
          client.once('end', () => connections.delete(client));
        },
      },
    } as DataSourceOptions);
    this.connections = connections;
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    const closing = [...this.connections];
    if (!closing.length) return;
    const cutOff = setTimeout(() => {
      for (const client of closing) client.connection.stream.destroy();
    }, CLOSE_DEADLINE_MS);
    await Promise.all(closing.map((client) => new Promise((ended) => client.once('end', ended))));
    clearTimeout(cutOff);
  }
}
