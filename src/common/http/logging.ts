import type { Params } from 'nestjs-pino';
import pino from 'pino';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Customer-facing capability paths (pay page tokens, payment result
 * references, checkout sessions) are masked; query strings dropped.
 */
export function safePath(url: string | undefined): string {
  return (url ?? '').split('?')[0].replace(/\/(pay|checkout)\/.*$/, '/$1/***');
}

/**
 * One JSON line per request with its request id, written asynchronously
 * (off the request path). Headers are not logged at all, so X-Api-Secret,
 * Authorization and cookies never reach a log.
 */
export function loggerParams(level: string): Params {
  const pretty = prettyTransport();
  return {
    pinoHttp: {
      level,
      ...(pretty ? { transport: pretty } : { stream: pino.destination({ dest: 1, sync: false }) }),
      genReqId: (req: IncomingMessage) => (req as unknown as { id: string }).id,
      customProps: () => ({}),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          path: safePath(req.url),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        err: (err: Error) => ({ type: err.name }),
      },
      customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    },
  };
}

/**
 * Readable lines (pino-pretty, a dev dependency) when standard output is a
 * terminal and the package is installed; JSON lines otherwise, as in
 * production where dev dependencies are absent.
 */
function prettyTransport(): { target: string; options: Record<string, unknown> } | undefined {
  if (!process.stdout.isTTY) return undefined;
  try {
    require.resolve('pino-pretty');
  } catch {
    return undefined;
  }
  return {
    target: 'pino-pretty',
    options: {
      translateTime: 'HH:MM:ss',
      ignore: 'pid,hostname,req,res,context,responseTime',
      singleLine: true,
      messageFormat:
        '{if context}[{context}] {end}{msg}{if req} {req.method} {req.path} -> {res.statusCode} ({responseTime} ms){end}',
    },
  };
}
