import { HttpException, Logger } from '@nestjs/common';

import { databaseUnavailable } from '../../database/database-errors';
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
  const busy = databaseUnavailable(err);
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
