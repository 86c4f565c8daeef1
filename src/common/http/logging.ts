import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { type Params, PinoLogger } from 'nestjs-pino';
import pino from 'pino';

import type { Metrics } from '../metrics/metrics';
import { drainPendingLines, LineBatches } from './line-batches';
import { type LogFormat, prettyLines, resolveLogFormat } from './pretty-lines';
import { type JomaRequest, routeTemplate } from './request-context';

/**
 * Customer-facing capability paths (pay page tokens, payment result
 * references, checkout sessions) are masked; query strings dropped.
 */
export function safePath(url: string | undefined): string {
  return (url ?? '').split('?')[0].replace(/\/(pay|checkout)\/.*$/, '/$1/***');
}

/**
 * The logger every log line goes through (nestjs-pino's `Logger` for the
 * app's own lines), written asynchronously, off the request path. nestjs-pino
 * mounts no per-request middleware (`forRoutes: []`): the one request line
 * is written by `observeRequests` below, which costs one log call per request
 * instead of a child logger, serializers and an async-context switch.
 * Lines are JSON, or readable (pretty-lines.ts) with LOG_FORMAT=pretty or,
 * LOG_FORMAT unset, when standard output is a terminal.
 */
export function loggerParams(level: string, format?: LogFormat): Params {
  const pretty = resolveLogFormat(format, process.stdout.isTTY) === 'pretty';
  return {
    pinoHttp: {
      level,
      // At 'silent' nothing is written: no batching stream (and no flush timer).
      ...(level === 'silent' ? {} : { stream: pretty ? prettyLines() : jsonLines() }),
      // pino-http runs its standard serializers first (made for Node's request
      // and response objects) and hands the original over as `raw`: the
      // request line's fields are already safe, so they pass through as
      // they are; errors are logged by type only.
      serializers: {
        req: (r: { raw: unknown }) => r.raw,
        res: (r: { raw: unknown }) => r.raw,
        err: (e: { type?: string }) => ({ type: e.type }),
      },
    },
    forRoutes: [],
  };
}

/** Lines are written in batches of at least this many bytes... */
export const LOG_BATCH_BYTES = 4096;
/** ...or after at most this long. */
export const LOG_FLUSH_MS = 100;

/**
 * Standard output as pino writes it in production: asynchronously, and in
 * batches (LOG_BATCH_BYTES, or whatever is pending every LOG_FLUSH_MS) rather
 * than one write system call per line: under load those calls were 3-5 % of
 * the CPU of a request on a 2-core VM (bench/README.md, "Log lines"). The
 * batches are made by `LineBatches` (SonicBoom's own batching re-copies the
 * batch for every line) and written by SonicBoom, which handles partial
 * writes, EAGAIN and a closed pipe. What is pending is written at exit, so a
 * crash loses nothing; only a SIGKILL can lose the last LOG_FLUSH_MS of lines.
 */
export function jsonLines(): LineBatches {
  return new LineBatches(
    pino.destination({ dest: 1, sync: false, minLength: 0 }),
    LOG_BATCH_BYTES,
    LOG_FLUSH_MS,
  );
}

/**
 * When a request finishes: its metrics (by route template) and one JSON log
 * line with its request id, method, path (customer-facing capability paths
 * masked, query strings dropped), status and duration. Headers are not
 * logged at all, so X-Api-Secret, Authorization and cookies never reach a log.
 */
export const observeRequests =
  (metrics: Metrics) =>
  (req: JomaRequest, res: ServerResponse, next: () => void): void => {
    const started = performance.now();
    res.once('finish', () => {
      const ms = performance.now() - started;
      metrics.observeHttp(req.method, routeTemplate(req) ?? 'unmatched', res.statusCode, ms / 1000);
      logRequest(req, res.statusCode, ms);
    });
    next();
  };

/**
 * Writes this request's line at debug when it succeeds: a poll that found
 * nothing new (GET /events?afterId=, which `joma listen` sends every 2 s),
 * whose lines would otherwise bury everything else at info. Takes Express's
 * request or Fastify's (whose Node request the line is written from).
 */
export function logAtDebug(req: object): void {
  const node = ((req as { raw?: object }).raw ?? req) as JomaRequest;
  node.logAtDebug = true;
}

function logRequest(req: JomaRequest, status: number, ms: number): void {
  const logger = PinoLogger.root;
  const level =
    status >= 500 ? 'error' : status >= 400 ? 'warn' : req.logAtDebug ? 'debug' : 'info';
  if (!logger?.isLevelEnabled(level)) return;
  logger[level](
    {
      req: { id: req.id, method: req.method, path: safePath(req.originalUrl) },
      res: { statusCode: status },
      responseTime: Math.round(ms),
    },
    status >= 500 ? 'request errored' : 'request completed',
  );
}

/**
 * Writes the request log's pending lines when the app has shut down, and
 * waits until they are written: on SIGTERM/SIGINT Nest closes the app, then
 * re-raises the signal, whose default action ends the process at once
 * (no `exit` event, the thread pool's queued writes dropped), so the
 * shutdown's last lines, and a batch still being written, would be lost.
 * Provided by the root module, whose hooks run after every feature module's.
 */
@Injectable()
export class PendingLogLines implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return drainPendingLines();
  }
}
