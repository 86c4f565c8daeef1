import { HttpException, Logger } from '@nestjs/common';

import { AppError } from '../errors/app-error';
import { ErrorCode, httpStatusOf } from '../errors/error-code';
import { Envelope, errorEnvelope } from './envelope';
import { answered, type HttpResponse, sendJson } from './replies';

const logger = new Logger('Errors');

/** Maps anything thrown to the AppError the client will see. */
export function toClientError(err: unknown, requestId: string): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const body = err.getResponse();
    const message =
      typeof body === 'object' && body !== null && 'message' in body
        ? String((body as { message: unknown }).message)
        : err.message;
    if (status === 404)
      return new AppError(
        ErrorCode.ROUTE_NOT_FOUND,
        message.startsWith('Cannot ') ? message : 'Route not found',
      );
    if (status === 400) return new AppError(ErrorCode.VALIDATION_FAILED, message);
    if (status === 401)
      return new AppError(ErrorCode.AUTHENTICATION_REQUIRED, 'Authentication required');
    if (status === 403) return new AppError(ErrorCode.PERMISSION_DENIED, 'Permission denied');
    if (status === 413) return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, 'Request body too large');
    if (status === 429) return new AppError(ErrorCode.RATE_LIMITED, 'Too many requests');
  }
  const busy = databaseBusy(err);
  if (busy) {
    logger.warn(`${busy}; correlationId=${requestId}`);
    return new AppError(
      ErrorCode.SERVICE_UNAVAILABLE,
      'The service is busy; retry shortly',
      undefined,
      { 'Retry-After': '1' },
    );
  }
  const name = err instanceof Error ? err.name : typeof err;
  // Only the error's class and PostgreSQL code are logged: messages can carry SQL or values.
  const pgCode = (err as { code?: unknown })?.code;
  logger.error(
    `Unhandled ${name}${pgCode ? ` (code ${String(pgCode)})` : ''}; correlationId=${requestId}`,
  );
  return new AppError(ErrorCode.INTERNAL_ERROR, `Internal error. Correlation id: ${requestId}`);
}

/**
 * An error whose exact envelope is already fixed, sent byte for byte: an
 * idempotent request's stored error outcome, first time and on replay.
 */
export class RenderedAppError extends AppError {
  constructor(readonly envelope: Envelope<null>) {
    super(
      envelope.meta.errorCode ?? ErrorCode.INTERNAL_ERROR,
      envelope.meta.message,
      envelope.meta.details,
    );
  }
}

export function sendError(res: HttpResponse, err: AppError, now: Date): void {
  if (answered(res)) return;
  const body =
    err instanceof RenderedAppError
      ? err.envelope
      : errorEnvelope(err.code, err.message, now, err.details);
  sendJson(res, httpStatusOf(err.code), body, err.headers);
}

/**
 * A database that is saturated or unreachable for a moment rather than a
 * bug: no pooled connection within the acquire timeout, a statement
 * cancelled by statement_timeout, or the connection lost under the request
 * (terminated by an administrator or a failover, SQLSTATE class 08 and
 * 57P01-57P03). Returns what to log, or null.
 */
const SOCKET_LOST = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT']);

function databaseBusy(err: unknown): string | null {
  const e = err as {
    code?: string;
    message?: string;
    driverError?: { code?: string; message?: string };
  };
  const code = e?.code ?? e?.driverError?.code;
  const message = e?.message ?? '';
  if (code === '57014') return 'Statement timeout (57014)';
  if (code === '40P01' || code === '40001') return `Transaction conflict (${code})`;
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
  return null;
}
