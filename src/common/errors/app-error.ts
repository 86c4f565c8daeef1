import { ErrorCode } from './error-code';

export interface ErrorDetail {
  field: string;
  message: string;
}

/**
 * The only error type services throw. The global exception filter turns it
 * into the envelope with the HTTP status of its code.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers, e.g. Retry-After for RATE_LIMITED. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  static notFound(what = 'Resource'): AppError {
    return new AppError(ErrorCode.RESOURCE_NOT_FOUND, `${what} not found`);
  }

  static invalidState(message: string): AppError {
    return new AppError(ErrorCode.INVALID_STATE, message);
  }

  static validation(field: string, message: string): AppError {
    return new AppError(ErrorCode.VALIDATION_FAILED, 'Validation failed', [{ field, message }]);
  }
}
