import type { OpenAPIObject } from '@nestjs/swagger';

import { ErrorCode } from '../common/errors/error-code';
import { CSV_EXPORT_LIMIT } from '../common/http/csv';
import { webhookEventSchemas } from '../events';
import { describeOperations } from './openapi-operations';
import { addParameterRules, addValidationRules, type DtoClass } from './openapi-validation-rules';

type Json = Record<string, unknown>;
type ResponseObject = NonNullable<NonNullable<OpenAPIObject['components']>['responses']>[string];

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
  429: 'RATE_LIMITED: too many requests from this client address; Retry-After says when to retry',
  503: 'SERVICE_UNAVAILABLE: the database is saturated (no connection in time, or a statement over its timeout); nothing was changed; retry after Retry-After',
};

/** Operations that never touch the database (so never answer 503). */
const NO_DATABASE = new Set(['/healthz']);

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

/** Response headers, documented on every response that can carry them. */
const RESPONSE_HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description:
      "The request's id (a sane client-sent X-Request-Id is echoed), also in the log line and in a 500's message",
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Whole seconds to wait before retrying',
    schema: { type: 'integer', minimum: 1 },
  },
  'Idempotent-Replayed': {
    description:
      "'true' when this is the stored response of an earlier request with the same Idempotency-Key",
    schema: { type: 'string', enum: ['true'] },
  },
};

/** Outcomes an Idempotency-Key replays (the success and the stored business errors). */
const REPLAYED_ERRORS = new Set([404, 409, 422]);

/** Database ids in paths: positive integers JavaScript holds exactly (others are 400). */
const ID_SCHEMA = {
  type: 'integer',
  format: 'int64',
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
};

function headersFor(status: number, idempotent: boolean): Json {
  const headers: Json = { 'X-Request-Id': RESPONSE_HEADERS['X-Request-Id'] };
  if (status === 429 || status === 503) headers['Retry-After'] = RESPONSE_HEADERS['Retry-After'];
  if (idempotent && (status < 300 || REPLAYED_ERRORS.has(status)))
    headers['Idempotent-Replayed'] = RESPONSE_HEADERS['Idempotent-Replayed'];
  return headers;
}

/**
 * The served document made exact where decorators cannot say it:
 * the server it is served from, `security: []` on public operations,
 * 413/415 on every operation with a body, the validation rules of the DTOs
 * (openapi-validation-rules.ts), the response headers on every
 * response that can carry them, path ids as the positive integers they
 * are, a true example for every error status, and schema spellings OpenAPI
 * 3.0 tools read correctly.
 */
export function finishOpenApiDocument(
  doc: OpenAPIObject,
  serverUrl: string,
  dtos: Map<string, DtoClass>,
  paramDtos: Map<string, DtoClass[]> = new Map(),
): OpenAPIObject {
  doc.servers = [{ url: serverUrl, description: 'This Joma instance' }];
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Json>;
  // Before operations get their readable ids (the rules are keyed by Controller_method).
  addParameterRules(doc.paths as Record<string, Record<string, Json>>, paramDtos);
  describeOperations(doc as unknown as { paths: Record<string, Record<string, Json>> });
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops as Record<string, Json>)) {
      if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
      if (op.security === undefined) op.security = [];
      const responses = op.responses as Record<string, Json>;
      csvExportOf(op, responses);
      optionalBody(op, schemas);
      // The body parser reads every write, with or without a documented body.
      if (op.requestBody || WRITE_METHODS.has(method)) {
        for (const status of [413, 415]) {
          responses[String(status)] ??= errorResponse(status, ERROR_DESCRIPTIONS[status]);
        }
      }
      // Any operation that reads the database may find it saturated; the
      // public gateway callbacks are rate-limited per client address.
      if (!NO_DATABASE.has(path)) responses['503'] ??= errorResponse(503, ERROR_DESCRIPTIONS[503]);
      if (path.startsWith('/api/v1/gateways/'))
        responses['429'] ??= errorResponse(429, ERROR_DESCRIPTIONS[429]);
      const parameters = (op.parameters ?? []) as Json[];
      for (const p of parameters) {
        const type = (p.schema as Json | undefined)?.type;
        if (p.in === 'path' && (type === 'number' || type === 'integer'))
          p.schema = { ...ID_SCHEMA };
      }
      const idempotent = parameters.some(
        (p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key',
      );
      for (const [status, shared] of Object.entries(responses)) {
        const code = Number(status);
        // A class-level decorator's response object is shared by its operations: copy before changing.
        const res: Json = { ...shared };
        responses[status] = res;
        res.headers = { ...(res.headers as Json | undefined), ...headersFor(code, idempotent) };
        if (code < 400) continue;
        const content = res.content as Record<string, Json> | undefined;
        const json = content?.['application/json'];
        if (json && (json.schema as Json | undefined)?.$ref === ENVELOPE_REF) {
          json.example = errorExample(code);
        }
      }
    }
  }
  addValidationRules(schemas, dtos);
  closeRequestSchemas(doc, schemas);
  describeWebhooks(doc, schemas);
  tidySchemas(doc.paths, schemas);
  tidySchemas(schemas, schemas);
  shareErrorResponses(doc);
  return doc;
}

/**
 * The webhook events: one schema per type and the `WebhookEvent` union
 * (events/event-payloads.ts, the source the service checks its events
 * against), and `x-webhooks`, what Joma POSTs to an endpoint, per type.
 */
function describeWebhooks(doc: OpenAPIObject, schemas: Record<string, Json>): void {
  Object.assign(schemas, webhookEventSchemas());
  (doc as unknown as Json)['x-webhooks'] = {
    event: {
      post: {
        summary: 'An event, as delivered to your endpoint',
        description:
          'Signed with X-Webhook-Signature-V2 (see the webhooks guide), not with API credentials; answer 2xx within 10 seconds. `type` tells the events apart.',
        operationId: 'webhookEvent',
        tags: ['Webhooks'],
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } },
          },
        },
        responses: { '200': { description: 'Acknowledged (any 2xx)' } },
      },
    },
  };
}

const WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/**
 * A list with a CSV export (`ApiCsvExport`, common/http/csv.ts): its 200
 * response also comes as `text/csv` (a string), and the description says
 * how to ask for it and what the columns hold.
 */
function csvExportOf(op: Json, responses: Record<string, Json>): void {
  const csv = op['x-csv-export'] as { header: string; columns: string } | undefined;
  if (!csv) return;
  delete op['x-csv-export'];
  const ok = { ...responses['200'] };
  ok.description = `${String(ok.description ?? 'Success')}; with \`Accept: text/csv\`, a CSV file`;
  ok.content = {
    ...(ok.content as Json | undefined),
    'text/csv': {
      schema: {
        type: 'string',
        description: `UTF-8 with a byte order mark, CRLF line ends, one header row, then every record the filters select, newest first. Columns: ${csv.columns}.`,
      },
      example: `${csv.header}\r\n`,
    },
  };
  responses['200'] = ok;
  const sentence = `**CSV export**: send \`Accept: text/csv\` for every record the filters select (not one page; \`page\`, \`size\`, \`cursor\`, \`paginate\`, \`sortBy\` and \`order\` are ignored; newest first), streamed as \`text/csv; charset=utf-8\` with a byte order mark and one header row: ${csv.header}. Amounts come twice, in taka with two decimals (\`1234.50\`) and in minor units; times are Asia/Dhaka local time (\`2026-12-02T15:04:05+06:00\`). A field starting with =, +, -, @, a tab or a carriage return gets a leading apostrophe (spreadsheet formula injection); fields with commas, quotes or line breaks are quoted. More than ${CSV_EXPORT_LIMIT} records is 400 VALIDATION_FAILED naming the limit, before anything is sent: narrow the filters.`;
  op.description = op.description ? `${String(op.description)}\n\n${sentence}` : sentence;
}

/** A body whose every member is optional may be left out (the service takes none as {}). */
function optionalBody(op: Json, schemas: Record<string, Json>): void {
  const body = op.requestBody as Json | undefined;
  const json = (body?.content as Record<string, Json> | undefined)?.['application/json'];
  const ref = (json?.schema as Json | undefined)?.$ref;
  if (!body || typeof ref !== 'string') return;
  const target = schemas[ref.replace('#/components/schemas/', '')];
  if (target && !(target.required as unknown[] | undefined)?.length) body.required = false;
}

/** Names of the shared error responses (components.responses). */
const ERROR_RESPONSE_NAMES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Unprocessable',
  429: 'RateLimited',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

/**
 * Error responses that say the same thing everywhere become one shared
 * response each (`#/components/responses/NotFound`, `...Replayable` where an
 * Idempotency-Key replays it); an operation whose error says more of its own
 * keeps it inline. The generated client's types shrink accordingly.
 */
function shareErrorResponses(doc: OpenAPIObject): void {
  const seen = new Map<string, { json: string; count: number; response: Json }>();
  const keyOf = (status: string, res: Json) => {
    const replayable = Boolean((res.headers as Json | undefined)?.['Idempotent-Replayed']);
    return `${ERROR_RESPONSE_NAMES[Number(status)]}${replayable ? 'Replayable' : ''}`;
  };
  const each = (visit: (status: string, res: Json, responses: Record<string, Json>) => void) => {
    for (const ops of Object.values(doc.paths))
      for (const op of Object.values(ops as Record<string, Json>)) {
        if (!op || typeof op !== 'object' || !('responses' in op)) continue;
        const responses = op.responses as Record<string, Json>;
        for (const [status, res] of Object.entries(responses))
          if (Number(status) >= 400 && ERROR_RESPONSE_NAMES[Number(status)] && !res.$ref)
            visit(status, res, responses);
      }
  };
  // The most common form of each becomes the shared one.
  const counts = new Map<string, Map<string, { count: number; response: Json }>>();
  each((status, res) => {
    const key = keyOf(status, res);
    const json = JSON.stringify(res);
    const forms = counts.get(key) ?? new Map<string, { count: number; response: Json }>();
    counts.set(key, forms);
    const form = forms.get(json) ?? { count: 0, response: res };
    form.count++;
    forms.set(json, form);
  });
  for (const [key, forms] of counts) {
    const [json, form] = [...forms.entries()].sort((a, b) => b[1].count - a[1].count)[0];
    seen.set(key, { json, count: form.count, response: form.response });
  }
  const shared: Record<string, ResponseObject> = {};
  each((status, res, responses) => {
    const key = keyOf(status, res);
    const common = seen.get(key);
    if (!common || common.count < 2 || JSON.stringify(res) !== common.json) return;
    shared[key] = common.response as unknown as ResponseObject;
    responses[status] = { $ref: `#/components/responses/${key}` };
  });
  doc.components = { ...doc.components, responses: { ...doc.components?.responses, ...shared } };
}

/**
 * Request bodies refuse members they do not declare (the one ValidationPipe
 * runs with forbidNonWhitelisted): every schema a request body reaches, its
 * nested objects included, says `additionalProperties: false`.
 */
function closeRequestSchemas(doc: OpenAPIObject, schemas: Record<string, Json>): void {
  const closed = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const o = node as Json;
    if (typeof o.$ref === 'string') {
      const name = o.$ref.replace('#/components/schemas/', '');
      if (closed.has(name) || !schemas[name]) return;
      closed.add(name);
      const target = schemas[name];
      if (target.type === 'object' || target.properties) target.additionalProperties = false;
      return visit(target);
    }
    for (const v of Object.values(o)) visit(v);
  };
  for (const ops of Object.values(doc.paths))
    for (const op of Object.values(ops as Record<string, Json>))
      if (op && typeof op === 'object') visit((op as Json).requestBody);
}
