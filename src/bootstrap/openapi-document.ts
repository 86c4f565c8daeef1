import type { OpenAPIObject } from '@nestjs/swagger';
import { ErrorCode } from '../common/errors/error-code';

type Json = Record<string, unknown>;

const ENVELOPE_REF = '#/components/schemas/ErrorEnvelopeDto';

/** What each error status most often carries, as a real envelope would show it. */
const ERROR_EXAMPLES: Record<number, { code: ErrorCode; message: string; details?: Json[] }> = {
  400: {
    code: ErrorCode.VALIDATION_FAILED,
    message: 'Validation failed',
    details: [
      { field: 'amountMinor', message: 'amountMinor must be an integer number of minor units' },
    ],
  },
  401: { code: ErrorCode.AUTHENTICATION_REQUIRED, message: 'Authentication required' },
  403: { code: ErrorCode.PERMISSION_DENIED, message: 'Permission denied' },
  404: { code: ErrorCode.RESOURCE_NOT_FOUND, message: 'Invoice not found' },
  405: {
    code: ErrorCode.METHOD_NOT_ALLOWED,
    message: 'PUT is not allowed on /api/v1/invoices; use GET, HEAD, POST',
  },
  409: {
    code: ErrorCode.INVALID_STATE,
    message: 'Invoice is PAID; only an ISSUED invoice can be voided',
  },
  413: { code: ErrorCode.PAYLOAD_TOO_LARGE, message: 'Request body exceeds 1048576 bytes' },
  415: {
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    message:
      'Request bodies must be JSON: send Content-Type: application/json (got "application/x-www-form-urlencoded")',
  },
  422: {
    code: ErrorCode.AMOUNT_OUT_OF_RANGE,
    message: 'amountMinor must be between 1000 and 50000000',
  },
  429: { code: ErrorCode.RATE_LIMITED, message: 'Too many requests' },
  500: {
    code: ErrorCode.INTERNAL_ERROR,
    message: 'Internal error. Correlation id: 3f1c2b9e-8d7a-4c7e-9a51-2b6f0d4e8a10',
  },
  503: {
    code: ErrorCode.SERVICE_UNAVAILABLE,
    message: 'The sandbox gateway could not open a checkout; payment 42 is FAILED. Try again.',
  },
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  413: 'PAYLOAD_TOO_LARGE (body over 1 MiB)',
  415: 'UNSUPPORTED_MEDIA_TYPE (the body is not application/json)',
};

function errorExample(status: number): Json {
  const e = ERROR_EXAMPLES[status] ?? ERROR_EXAMPLES[500];
  return {
    data: null,
    meta: {
      success: false,
      message: e.message,
      errorCode: e.code,
      timestamp: '2026-01-15T09:30:00.000Z',
      ...(e.details ? { details: e.details } : {}),
    },
    pagination: { page: 0, size: 0, totalElements: 0, totalPages: 0 },
  };
}

function errorResponse(status: number, description: string): Json {
  return {
    description,
    content: {
      'application/json': { schema: { $ref: ENVELOPE_REF }, example: errorExample(status) },
    },
  };
}

/**
 * Rewrites schema spellings that OpenAPI 3.0 tools read wrongly:
 * `allOf: [$ref]` alone becomes the `$ref`; a nullable `allOf: [$ref]` of a
 * string enum becomes that enum inline with `null` allowed (3.0 ignores a
 * `nullable` sibling of a reference).
 */
function tidySchemas(node: unknown, schemas: Record<string, Json>): void {
  if (Array.isArray(node)) {
    for (const item of node) tidySchemas(item, schemas);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const o = node as Json;
  const allOf = o.allOf as Json[] | undefined;
  if (allOf?.length === 1 && typeof allOf[0].$ref === 'string') {
    const ref = allOf[0].$ref;
    const target = schemas[ref.replace('#/components/schemas/', '')];
    if (o.nullable === true && Array.isArray(target?.enum)) {
      delete o.allOf;
      Object.assign(o, {
        type: target.type ?? 'string',
        enum: [...(target.enum as unknown[]), null],
      });
    } else if (Object.keys(o).length === 1) {
      delete o.allOf;
      o.$ref = ref;
    }
  }
  for (const v of Object.values(o)) tidySchemas(v, schemas);
}

/**
 * The served document made exact where decorators cannot say it:
 * the server it is served from, `security: []` on public operations,
 * 413/415 on every operation with a body, a true example for every error
 * status, and schema spellings OpenAPI 3.0 tools read correctly.
 */
export function finishOpenApiDocument(doc: OpenAPIObject, serverUrl: string): OpenAPIObject {
  doc.servers = [{ url: serverUrl, description: 'This Joma instance' }];
  for (const ops of Object.values(doc.paths)) {
    for (const op of Object.values(ops as Record<string, Json>)) {
      if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
      if (op.security === undefined) op.security = [];
      const responses = op.responses as Record<string, Json>;
      if (op.requestBody) {
        for (const status of [413, 415]) {
          responses[String(status)] ??= errorResponse(status, ERROR_DESCRIPTIONS[status]);
        }
      }
      for (const [status, res] of Object.entries(responses)) {
        const code = Number(status);
        if (code < 400) continue;
        const content = res.content as Record<string, Json> | undefined;
        const json = content?.['application/json'];
        if (json && (json.schema as Json | undefined)?.$ref === ENVELOPE_REF) {
          json.example = errorExample(code);
        }
      }
    }
  }
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Json>;
  tidySchemas(doc.paths, schemas);
  tidySchemas(schemas, schemas);
  return doc;
}
