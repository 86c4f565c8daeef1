import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { NextFunction, Request, Response } from 'express';

import { type JomaRequest, routeTemplate } from '../../src/common/http/request-context';
import { perWorker } from './worker-cache';

/**
 * Every response the e2e suite receives is checked against the OpenAPI
 * document the app serves (`/docs-json`): its status must be documented for
 * the operation, a JSON body must match the documented schema (ajv, OpenAPI
 * 3.0 semantics: `nullable`, formats on), and the `X-Request-Id`,
 * `Idempotent-Replayed` and `Retry-After` headers it carries must be
 * documented on that response. A mismatch fails the test that made the
 * request (test/support/openapi-after-each.ts). Paths the document does not
 * list (hosted HTML pages, /docs) are not API operations and are skipped.
 *
 * Every operation a response was checked for is recorded, so the run can
 * tell which documented operations no e2e test exercised
 * (test/support/global-teardown.ts).
 */

type Json = Record<string, any>;

const CHECKED_HEADERS = ['x-request-id', 'idempotent-replayed', 'retry-after'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** This run's scratch directory (made by global-setup). */
const runDir = () =>
  process.env.JOMA_TEST_RUN_DIR ?? join(__dirname, '..', '..', '.data', 'test-run');
/** Where each process records the operations it saw (a file per process, a line per operation). */
export const operationsSeenDir = () => join(runDir(), 'operations-seen');
/** The documented operations, one per line (written by every test app; all alike). */
export const operationsDocumentedFile = () => join(runDir(), 'operations-documented.txt');

/** `/api/v1/invoices/:id/void` -> `/api/v1/invoices/{id}/void` */
export const templateOf = (expressPath: string) => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Every documented operation, as `METHOD /path/{param}`. */
export function documentedOperations(doc: Json): string[] {
  const ops: string[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {}))
    for (const method of METHODS) if (item[method]) ops.push(`${method.toUpperCase()} ${path}`);
  return ops.sort();
}

/** A document's compiled schemas: one per worker process and document (see worker-cache.ts). */
interface Compiled {
  ajv: Ajv;
  validators: Map<string, ValidateFunction>;
}

function compiledFor(doc: Json): Compiled {
  const text = JSON.stringify(doc);
  const digest = createHash('sha256').update(text).digest('hex');
  return perWorker(`openapi-conformance:${digest}`, () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    // The components, addressable the way the document's own $refs are written.
    ajv.addSchema({ $id: 'openapi.json', components: doc.components ?? {} });
    if (runDir()) {
      mkdirSync(runDir(), { recursive: true });
      writeFileSync(operationsDocumentedFile(), `${documentedOperations(doc).join('\n')}\n`);
    }
    return { ajv, validators: new Map<string, ValidateFunction>() };
  });
}

export class OpenApiConformance {
  private readonly compiled: Compiled;
  private readonly problems: string[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly doc: Json) {
    this.compiled = compiledFor(doc);
  }

  /** Mismatches found since the last call (and forgets them). */
  drain(): string[] {
    return this.problems.splice(0);
  }

  /** Middleware (Express, or Fastify's middie): checks each response when it finishes. */
  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      const chunks: Buffer[] = [];
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      (res as unknown as { end: (...args: unknown[]) => Response }).end = (...args: unknown[]) => {
        const [chunk] = args;
        if (chunk && typeof chunk !== 'function')
          chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
        return end(...args);
      };
      res.once('finish', () => {
        const route = routeTemplate(req as JomaRequest);
        if (!route) return;
        this.check(
          req.method,
          templateOf(route),
          res.statusCode,
          res.getHeaders(),
          Buffer.concat(chunks),
        );
      });
      next();
    };
  }

  check(
    method: string,
    path: string,
    status: number,
    headers: Record<string, unknown>,
    body: Buffer,
  ): void {
    const operation = this.doc.paths?.[path]?.[method.toLowerCase()] as Json | undefined;
    if (!operation) return;
    const op = `${method} ${path}`;
    this.record(op);
    const listed = (operation.responses?.[String(status)] ?? operation.responses?.default) as
      Json | undefined;
    // A shared response ('#/components/responses/NotFound') reads from the components.
    const response = (
      typeof listed?.$ref === 'string'
        ? this.doc.components?.responses?.[listed.$ref.replace('#/components/responses/', '')]
        : listed
    ) as Json | undefined;
    if (!response) {
      this.problems.push(`${op}: status ${status} is not documented`);
      return;
    }
    const documentedHeaders = Object.keys(response.headers ?? {}).map((h) => h.toLowerCase());
    for (const h of CHECKED_HEADERS)
      if (headers[h] !== undefined && !documentedHeaders.includes(h))
        this.problems.push(`${op} ${status}: header ${h} is sent but not documented`);
    const type = String(headers['content-type'] ?? '');
    // A documented body of another media type (a list's `text/csv` export): its type is all there is to check.
    const media = type.split(';')[0].trim().toLowerCase();
    if (media && media !== 'application/json' && response.content?.[media]) return;
    const schema = response.content?.['application/json']?.schema as Json | undefined;
    if (!schema) {
      if (type.includes('application/json') && body.length > 0 && !response.content)
        this.problems.push(`${op} ${status}: a JSON body is sent but none is documented`);
      return;
    }
    if (!type.includes('application/json')) {
      this.problems.push(`${op} ${status}: documented as JSON, sent ${type || 'no content type'}`);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      this.problems.push(`${op} ${status}: the body is not JSON`);
      return;
    }
    const validate = this.validatorFor(`${op} ${status}`, schema);
    if (!validate(parsed)) {
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`);
      this.problems.push(`${op} ${status}: body does not match the document: ${errors.join('; ')}`);
    }
  }

  private validatorFor(key: string, schema: Json): ValidateFunction {
    const { ajv, validators } = this.compiled;
    let v = validators.get(key);
    if (!v) {
      // Local $refs ('#/components/...') point into the document's components.
      const rebased = JSON.parse(
        JSON.stringify(schema).replace(/"#\/components\//g, '"openapi.json#/components/'),
      ) as Json;
      v = ajv.compile(rebased);
      validators.set(key, v);
    }
    return v;
  }

  private record(op: string): void {
    if (this.seen.has(op) || !runDir()) return;
    this.seen.add(op);
    mkdirSync(operationsSeenDir(), { recursive: true });
    appendFileSync(join(operationsSeenDir(), `${process.pid}.txt`), `${op}\n`);
  }
}

/** The conformance checks of every test app in this process (the after-each hook drains them). */
export const conformance: OpenApiConformance[] = [];
