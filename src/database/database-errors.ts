import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';

/** Node socket errors met when the connection to PostgreSQL is lost or refused. */
const SOCKET_LOST = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * A database that is saturated or unreachable for a moment rather than a
 * bug: no pooled connection within the acquire timeout, a statement
 * cancelled by statement_timeout, the connection lost under the request
 * (terminated by an administrator or a failover, SQLSTATE class 08 and
 * 57P01-57P03), a server that cannot write (25006: a standby, or a primary
 * being demoted in a failover) or that has no connection left (53300, a
 * pooler's client limit included). Returns what to log, or null.
 */
export function databaseUnavailable(err: unknown): string | null {
  const e = err as {
    code?: string;
    message?: string;
    driverError?: { code?: string; message?: string };
  };
  const code = e?.code ?? e?.driverError?.code;
  const message = e?.message ?? '';
  if (code === '57014') return 'Statement timeout (57014)';
  if (code === '40P01' || code === '40001') return `Transaction conflict (${code})`;
  if (code === '25006') return 'The database cannot write (25006): a standby or a demoted primary';
  if (code === '53300') return 'The database has no connection left (53300)';
  if (code && (/^08/.test(code) || /^57P0[123]$/.test(code) || SOCKET_LOST.has(code)))
    return `Database connection lost (${code})`;
  if (
    /Connection terminated unexpectedly|Client has encountered a connection error|Connection terminated$/i.test(
      message,
    )
  ) {
    return 'Database connection lost';
  }
  // TypeORM releases a query runner whose connection errored; the request's next statement then meets this.
  const name = (err as Error | undefined)?.name;
  if (
    name === 'QueryRunnerAlreadyReleasedError' ||
    name === 'QueryRunnerProviderAlreadyReleasedError'
  )
    return `Database connection lost (${name})`;
  if (
    /timeout exceeded when trying to connect|Connection terminated due to connection timeout/i.test(
      message,
    )
  ) {
    return 'No database connection within the acquire timeout';
  }
  // pg's client-side query_timeout (set on the read replica's pool): the server did not answer.
  if (message === 'Query read timeout') return 'The database did not answer in time';
  return null;
}

/**
 * Whether `err` came from Joma's own database (a failed statement, a pool
 * timeout, a lost connection) rather than from a remote party such as a
 * gateway: such a failure is Joma's own unavailability, never the other
 * party's answer.
 */
/**
 * The connection itself failed (lost, refused, or silent past pg's
 * `query_timeout` or its connect timeout), not the statement: what makes the
 * read replica rest. A statement timeout, a recovery conflict or a full pool
 * says nothing about the server being gone.
 */
export function connectionFailed(err: unknown): boolean {
  const why = databaseUnavailable(err);
  return (
    why !== null &&
    (why.startsWith('Database connection lost') ||
      why === 'The database did not answer in time' ||
      /Connection terminated due to connection timeout/i.test((err as Error)?.message ?? ''))
  );
}

export function isDatabaseError(err: unknown): boolean {
  return (
    err instanceof QueryFailedError ||
    err instanceof DatabaseError ||
    databaseUnavailable(err) !== null
  );
}
