import { Logger } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';

import { ErrorCode, httpStatusOf } from '../common/errors/error-code';
import { toClientError } from '../common/http/error-response';
import { databaseUnavailable } from './database-errors';
import { transientStartupError } from './startup-retry';

/** An error as pg raises it for a server's ErrorResponse. */
function pgError(code: string, message = `error ${code}`): DatabaseError {
  const err = new DatabaseError(message, 0, 'error');
  err.code = code;
  return err;
}
/** The same wrapped by TypeORM (its `driverError`). */
const typeormError = (code: string) =>
  new QueryFailedError('INSERT INTO payments ...', [], pgError(code));
/** A Node socket error. */
const socketError = (code: string) =>
  Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

describe('databaseUnavailable: what a failover throws is 503 with Retry-After, not 500', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn', 'debug', 'verbose', 'fatal']));
  const failover = [
    // A standby, or a primary being demoted: it answers, but cannot write.
    pgError('25006', 'cannot execute INSERT in a read-only transaction'),
    typeormError('25006'),
    // Terminated by an administrator or the server's shutdown; the server still starting.
    pgError('57P01', 'terminating connection due to administrator command'),
    pgError('57P02'),
    pgError('57P03', 'the database system is starting up'),
    // Connection exceptions (class 08), PgBouncer's own refusals among them.
    pgError('08006'),
    pgError('08P01', 'server conn crashed?'),
    typeormError('08003'),
    pgError('53300', 'no more connections allowed (max_client_conn)'),
    socketError('ECONNREFUSED'),
    socketError('ECONNRESET'),
    socketError('EHOSTUNREACH'),
    new Error('Connection terminated unexpectedly'),
    // pg's client-side query_timeout (the read replica's pool): a server gone silent.
    new Error('Query read timeout'),
  ];

  it.each(failover.map((e) => [(e as { code?: string }).code ?? e.message, e]))(
    '%s',
    (_name, err) => {
      expect(databaseUnavailable(err)).not.toBeNull();
      const answer = toClientError(err, 'req-1');
      expect(answer.code).toBe(ErrorCode.SERVICE_UNAVAILABLE);
      expect(httpStatusOf(answer.code)).toBe(503);
      expect(answer.headers).toEqual({ 'Retry-After': '1' });
      // Start-up waits for such a database too (DB_CONNECT_RETRY_MS).
      expect(transientStartupError(err)).not.toBeNull();
    },
  );

  it('a bug or a refusal that no retry fixes stays what it is', () => {
    for (const err of [
      pgError('23505'),
      typeormError('42P01'),
      pgError('28P01'),
      new Error('boom'),
    ]) {
      expect(databaseUnavailable(err)).toBeNull();
      expect(toClientError(err, 'req-1').code).toBe(ErrorCode.INTERNAL_ERROR);
    }
  });
});
