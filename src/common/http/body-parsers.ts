import type { NextFunction, RequestHandler, Response } from 'express';
import express from 'express';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import type { JomaRequest } from './request-context';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of objects and arrays a JSON body may have (the body itself is level 1). */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether a parsed JSON value nests objects or arrays deeper than `max`
 * levels. Iterative, so a hostile body cannot overflow the stack here; it is
 * refused before anything recursive (idempotency hashing, class-transformer,
 * validation) walks it.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(v as object)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
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
  const json = wrap(
    express.json({ limit: MAX_BODY_BYTES, verify: keepRaw as never, strict: true }),
  );
  const depthLimited: RequestHandler = (req, res, next) =>
    json(req, res, () => {
      if (!nestedDeeperThan(req.body, MAX_JSON_DEPTH)) return next();
      onError(
        AppError.validation(
          'body',
          `JSON must not be nested more than ${MAX_JSON_DEPTH} levels deep`,
        ),
        req as JomaRequest,
        res,
      );
    });
  return [
    depthLimited,
    wrap(express.urlencoded({ limit: MAX_BODY_BYTES, extended: false, verify: keepRaw as never })),
  ];
}

function toAppError(err: unknown): AppError {
  const type = (err as { type?: string }).type;
  if (type === 'entity.too.large') {
    return new AppError(
      ErrorCode.PAYLOAD_TOO_LARGE,
      `Request body exceeds ${MAX_BODY_BYTES} bytes`,
    );
  }
  if (type === 'entity.parse.failed') {
    return new AppError(ErrorCode.MALFORMED_JSON, 'Request body is not valid JSON');
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AppError(ErrorCode.VALIDATION_FAILED, 'Unsupported body encoding');
  }
  return new AppError(ErrorCode.VALIDATION_FAILED, 'Request body could not be read');
}
