import { ErrorCode, httpStatusOf } from './error-code';

/** The error table (docs/api.md), restated independently of the code. */
const EXPECTED: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  UNSUPPORTED_CURRENCY: 400,
  WEBHOOK_URL_REQUIRES_TLS: 400,
  WEBHOOK_URL_NOT_ALLOWED: 400,
  REDIRECT_URL_NOT_ALLOWED: 400,
  AUTHENTICATION_REQUIRED: 401,
  INVALID_CREDENTIALS: 401,
  PERMISSION_DENIED: 403,
  APP_SUSPENDED: 403,
  TEST_MODE_ONLY: 403,
  RESOURCE_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  INVALID_STATE: 409,
  DUPLICATE_RESOURCE: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  AMOUNT_OUT_OF_RANGE: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

describe('httpStatusOf', () => {
  it('knows exactly the codes of the error table', () => {
    expect(Object.values(ErrorCode).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s -> %d', (code, status) => {
    expect(httpStatusOf(code as ErrorCode)).toBe(status);
  });

  it('throws for a value that is not a code', () => {
    expect(() => httpStatusOf('NOPE' as ErrorCode)).toThrow(/unmapped/);
  });
});
