/** Every machine error code the API answers with, and its HTTP status. */
export enum ErrorCode {
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  MALFORMED_JSON = 'MALFORMED_JSON',
  UNSUPPORTED_CURRENCY = 'UNSUPPORTED_CURRENCY',
  WEBHOOK_URL_REQUIRES_TLS = 'WEBHOOK_URL_REQUIRES_TLS',
  WEBHOOK_URL_NOT_ALLOWED = 'WEBHOOK_URL_NOT_ALLOWED',
  REDIRECT_URL_NOT_ALLOWED = 'REDIRECT_URL_NOT_ALLOWED',
  AUTHENTICATION_REQUIRED = 'AUTHENTICATION_REQUIRED',
  INVALID_CREDENTIALS = 'INVALID_CREDENTIALS',
  PERMISSION_DENIED = 'PERMISSION_DENIED',
  APP_SUSPENDED = 'APP_SUSPENDED',
  TEST_MODE_ONLY = 'TEST_MODE_ONLY',
  RESOURCE_NOT_FOUND = 'RESOURCE_NOT_FOUND',
  ROUTE_NOT_FOUND = 'ROUTE_NOT_FOUND',
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  INVALID_STATE = 'INVALID_STATE',
  DUPLICATE_RESOURCE = 'DUPLICATE_RESOURCE',
  IDEMPOTENCY_KEY_IN_USE = 'IDEMPOTENCY_KEY_IN_USE',
  WEBHOOK_ENDPOINT_LIMIT_REACHED = 'WEBHOOK_ENDPOINT_LIMIT_REACHED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  AMOUNT_OUT_OF_RANGE = 'AMOUNT_OUT_OF_RANGE',
  RATE_LIMITED = 'RATE_LIMITED',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
}

/**
 * HTTP status of each code. Exhaustive: adding a code without mapping it
 * fails to compile.
 */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.VALIDATION_FAILED:
    case ErrorCode.MALFORMED_JSON:
    case ErrorCode.UNSUPPORTED_CURRENCY:
    case ErrorCode.WEBHOOK_URL_REQUIRES_TLS:
    case ErrorCode.WEBHOOK_URL_NOT_ALLOWED:
    case ErrorCode.REDIRECT_URL_NOT_ALLOWED:
      return 400;
    case ErrorCode.AUTHENTICATION_REQUIRED:
    case ErrorCode.INVALID_CREDENTIALS:
      return 401;
    case ErrorCode.PERMISSION_DENIED:
    case ErrorCode.APP_SUSPENDED:
    case ErrorCode.TEST_MODE_ONLY:
      return 403;
    case ErrorCode.RESOURCE_NOT_FOUND:
    case ErrorCode.ROUTE_NOT_FOUND:
      return 404;
    case ErrorCode.METHOD_NOT_ALLOWED:
      return 405;
    case ErrorCode.INVALID_STATE:
    case ErrorCode.DUPLICATE_RESOURCE:
    case ErrorCode.IDEMPOTENCY_KEY_IN_USE:
    case ErrorCode.WEBHOOK_ENDPOINT_LIMIT_REACHED:
      return 409;
    case ErrorCode.PAYLOAD_TOO_LARGE:
      return 413;
    case ErrorCode.UNSUPPORTED_MEDIA_TYPE:
      return 415;
    case ErrorCode.IDEMPOTENCY_KEY_REUSED:
    case ErrorCode.AMOUNT_OUT_OF_RANGE:
      return 422;
    case ErrorCode.RATE_LIMITED:
      return 429;
    case ErrorCode.INTERNAL_ERROR:
      return 500;
    case ErrorCode.SERVICE_UNAVAILABLE:
      return 503;
    default: {
      const unreachable: never = code;
      throw new Error(`unmapped error code ${String(unreachable)}`);
    }
  }
}
