import type { NextFunction, RequestHandler, Response } from 'express';
import express from 'express';

import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import type { JomaRequest } from './request-context';

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * A settlement file (admin import): up to 32 MiB (about 700,000 lines). The
 * body parsers leave that route's body unread; the route reads it
 * (readLargeJson) only after its guards verified the admin session and the
 * permission. Before that, a body over 1 MiB without a bearer token at all
 * is refused 413 unread, and one over 32 MiB whatever the token.
 */
export const MAX_SETTLEMENT_BODY_BYTES = 32 * 1024 * 1024;
/** The public login route takes far less: an email and a password. */
export const MAX_LOGIN_BODY_BYTES = 4 * 1024;
/**
 * Most JSON members (object members and array elements, counted together)
 * a body may hold. Checked right after parsing, in one linear pass, before
 * anything else walks the body: class-transformer's key handling is
 * quadratic, and one 110,000-member body used to block the event loop for
 * over 10 s.
 */
export const MAX_JSON_MEMBERS = 2000;
/** Deepest nesting of objects and arrays a JSON body may have (the body itself is level 1). */
export const MAX_JSON_DEPTH = 32;

/**
 * Member names that mean something to JavaScript objects. JSON.parse keeps
 * them as plain data, but anything that later merges or copies the body
 * could turn them into prototype changes; no Joma field has these names.
 */
const FORBIDDEN_MEMBERS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * One walk over a parsed JSON body: whether it nests deeper than `max`
 * levels or holds more than `maxMembers` members, and the path of the first
 * member with a forbidden name. Iterative, so a hostile body cannot overflow
 * the stack; it runs before anything recursive walks the body.
 */
export function inspectJson(
  value: unknown,
  max: number,
  maxMembers = Infinity,
): { tooDeep: boolean; tooMany?: boolean; forbiddenMember?: string } {
  const stack: [unknown, number, string][] = [[value, 1, '']];
  let members = 0;
  while (stack.length > 0) {
    const [v, depth, path] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return { tooDeep: true };
    // Counted as it goes, with no array of keys built: a 30 MiB array is
    // refused after maxMembers steps, not after listing its elements.
    if (Array.isArray(v)) {
      if (members + v.length > maxMembers) return { tooDeep: false, tooMany: true };
      members += v.length;
      for (let i = 0; i < v.length; i++) {
        const child: unknown = v[i];
        if (child !== null && typeof child === 'object')
          stack.push([child, depth + 1, path ? `${path}.${i}` : String(i)]);
      }
      continue;
    }
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      if (++members > maxMembers) return { tooDeep: false, tooMany: true };
      const at = path ? `${path}.${key}` : key;
      if (FORBIDDEN_MEMBERS.has(key)) return { tooDeep: false, forbiddenMember: at };
      const child = (v as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1, at]);
    }
  }
  return { tooDeep: false };
}

/**
 * The public, customer-facing paths: the hosted pay page, the sandbox
 * checkout and gateway callbacks. They take HTML form posts (SSLCommerz
 * posts its IPN as a form; everywhere else a request body must be JSON) and
 * are rate-limited per client address.
 */
export function isPublicPage(path: string): boolean {
  const p = routedPath(path);
  return p.startsWith('/pay/') || p.startsWith('/sandbox/') || p.startsWith('/api/v1/gateways/');
}

/**
 * A request path as the router matches it, for decisions made before
 * routing (rate limits, body limits): percent-encoding decoded, lower case,
 * no trailing slash. Routing is case-insensitive and ignores a trailing
 * slash on both adapters, and Fastify's router decodes, so a decision on
 * the path as sent could be sidestepped by spelling the route differently.
 */
export function routedPath(path: string): string {
  let p = path;
  if (p.includes('%')) {
    try {
      p = decodeURI(p);
    } catch {
      // Malformed: no router decodes it either, so it matches no public route.
    }
  }
  p = p.toLowerCase();
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

export const acceptsForms = isPublicPage;

/** Whether the body is declared JSON: application/json or any +json type, parameters aside. */
function isJson(req: JomaRequest): boolean {
  const type = req.headers['content-type']?.split(';', 1)[0].trim().toLowerCase();
  return type !== undefined && (type === 'application/json' || /^[^/]+\/[^/]+\+json$/.test(type));
}

/** Whether the request carries a body (a length above zero, or chunked). */
function hasBody(req: JomaRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const keepRaw = (req: JomaRequest, _res: unknown, buf: Buffer) => {
  req.rawBody = buf;
};

/**
 * JSON and form bodies (gateways post forms), 1 MiB at most, raw bytes kept
 * for signature checks. Parser failures become AppErrors so the one filter
 * renders them.
 */
export function bodyParsers(
  onError: (err: AppError, req: JomaRequest, res: Response) => void,
): RequestHandler[] {
  const wrap =
    (parser: RequestHandler): RequestHandler =>
    (req, res, next: NextFunction) =>
      parser(req, res, (err?: unknown) => {
        if (!err) return next();
        onError(toAppError(err), req as JomaRequest, res);
      });
  const jsonWithin = (limit: number) =>
    wrap(express.json({ limit, verify: keepRaw as never, strict: false }));
  const anyJson = jsonWithin(MAX_BODY_BYTES);
  const loginJson = jsonWithin(MAX_LOGIN_BODY_BYTES);
  const json: RequestHandler = (req, res, next) => {
    const path = routedPath(req.path);
    if (path === SETTLEMENT_IMPORT_PATH) return deferLarge(req as JomaRequest, res, next);
    return (path === LOGIN_PATH ? loginJson : anyJson)(req, res, next);
  };
  /** Left unread for the route to read after its guards; only what is refused anyway is refused here. */
  const deferLarge: RequestHandler = (req, res, next) => {
    const r = req as JomaRequest;
    const length = Number(r.headers['content-length'] ?? 0);
    const bearer = /^Bearer \S/.test(r.headers.authorization ?? '');
    const limit = bearer ? MAX_SETTLEMENT_BODY_BYTES : MAX_BODY_BYTES;
    if (length <= limit) return next();
    onError(
      new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `Request body exceeds ${limit} bytes`, undefined, {
        Connection: 'close',
      }),
      r,
      res,
    );
  };
  const checkedJson: RequestHandler = (req, res, next) =>
    json(req, res, () => {
      const refusal = refuseJson(req as JomaRequest);
      if (!refusal) return next();
      onError(refusal, req as JomaRequest, res);
    });
  const jsonOnly: RequestHandler = (req, res, next) => {
    const r = req as JomaRequest;
    if (acceptsForms(r.path) || !hasBody(r) || isJson(r)) return next();
    onError(
      new AppError(
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        `Request bodies must be JSON: send Content-Type: application/json (got ${
          r.headers['content-type'] ? `"${r.headers['content-type']}"` : 'no Content-Type'
        })`,
      ),
      r,
      res,
    );
  };
  return [
    jsonOnly,
    checkedJson,
    wrap(express.urlencoded({ limit: MAX_BODY_BYTES, extended: false, verify: keepRaw as never })),
  ];
}

/** Why a parsed JSON body is refused before validation, or undefined. */
function refuseJson(req: JomaRequest): AppError | undefined {
  if (req.rawBody === undefined || !isJson(req)) return undefined;
  return refuseParsedJson(req.body);
}

/** The rules every JSON body meets before validation: an object, within the member, depth and name limits. */
export function refuseParsedJson(body: unknown): AppError | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return AppError.validation('body', 'body must be a JSON object');
  }
  const found = inspectJson(body, MAX_JSON_DEPTH, MAX_JSON_MEMBERS);
  if (found.tooMany) {
    return AppError.validation(
      'body',
      `JSON must not hold more than ${MAX_JSON_MEMBERS} members in all`,
    );
  }
  if (found.tooDeep) {
    return AppError.validation(
      'body',
      `JSON must not be nested more than ${MAX_JSON_DEPTH} levels deep`,
    );
  }
  if (found.forbiddenMember) {
    return AppError.validation(found.forbiddenMember, `${found.forbiddenMember} is not allowed`);
  }
  return undefined;
}

const LOGIN_PATH = '/api/v1/auth/login';
const SETTLEMENT_IMPORT_PATH = '/api/v1/admin/settlements/import';

function toAppError(err: unknown): AppError {
  const type = (err as { type?: string; limit?: number }).type;
  if (type === 'entity.too.large') {
    const limit = (err as { limit?: number }).limit ?? MAX_BODY_BYTES;
    return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `Request body exceeds ${limit} bytes`);
  }
  if (type === 'entity.parse.failed') {
    return new AppError(ErrorCode.MALFORMED_JSON, 'Request body is not valid JSON');
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AppError(ErrorCode.VALIDATION_FAILED, 'Unsupported body encoding');
  }
  return new AppError(ErrorCode.VALIDATION_FAILED, 'Request body could not be read');
}
