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

  /**
   * An AppError without a stack trace, for refusals that are routine under
   * load (a rate limit's 429): a flood makes thousands a second, none needs
   * a stack, and capturing one on a deep middleware stack was the largest
   * JavaScript cost of a refusal (bench/README.md, "Refusals").
   */
  static routine(code: ErrorCode, message: string, headers?: Record<string, string>): AppError {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return new AppError(code, message, undefined, headers);
    } finally {
      Error.stackTraceLimit = limit;
    }
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
