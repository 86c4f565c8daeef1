import type { IncomingMessage, Server } from 'node:http';

import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { answerBrokenLink } from '../common/html/broken-link-page';
import { type RegisteredRoute, routePattern } from '../common/http/allowed-methods';
import { MAX_SETTLEMENT_BODY_BYTES } from '../common/http/body-parsers';
import { sendError } from '../common/http/error-response';
import { dropForgedForwardedFor } from '../common/http/forwarded-for';
import type { HttpResponse } from '../common/http/replies';
import { requestIdOf } from '../common/http/request-id';
import type { AppConfig } from '../config/app-config';

type NestOptions = { bufferLogs?: boolean; logger?: false };

/**
 * The Nest application on the HTTP server HTTP_ADAPTER names: Express (the
 * default) or Fastify. Joma's own HTTP code (middleware, the exception
 * filter, hosted pages) works on Node's request and response, which both
 * adapters hand to middleware, so one set of it serves both; what differs is
 * set up here and in `configureHttpServer`.
 */
export async function createHttpApp(
  root: DynamicModule,
  config: AppConfig,
  options: NestOptions = {},
): Promise<INestApplication> {
  if (config.httpAdapter !== 'fastify') {
    return NestFactory.create<NestExpressApplication>(root, { ...options, bodyParser: false });
  }
  // Loaded only when chosen: an Express deployment never loads Fastify.
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  const answers: { clock?: Clock } = {};
  const adapter = new FastifyAdapter({
    // The client address from X-Forwarded-For through these proxies only, as Express's `trust proxy`.
    // (A hop count as Fastify's function form: its options type no longer takes a number.)
    trustProxy:
      typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // Fastify's request id is Joma's (a sane client X-Request-Id, else a UUID), kept on the Node request.
    genReqId: (raw: IncomingMessage) => ((raw as { id?: string }).id = requestIdOf(raw)),
    // Express's routing: case-insensitive, a trailing slash optional.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 2048 },
    // Bodies are read and limited by Joma's own parsers (body-parsers.ts), before Fastify's turn.
    bodyLimit: MAX_SETTLEMENT_BODY_BYTES,
    logger: false,
    // As on Express (Node's own server): requests in flight while closing are served, not
    // refused, and an idle kept-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_S
    // (5 s by default, Node's; Fastify's own is 72 s).
    return503OnClosing: false,
    keepAliveTimeout: config.httpKeepAliveTimeoutMs,
    // A URL the router cannot decode (bad percent-encoding, an overlong segment) is refused
    // before any hook runs: in the envelope, as every other refusal (a customer's broken
    // payment link: the hosted pages' 404, as the exception filter answers it).
    frameworkErrors: (_err: Error, request: FastifyRequest, reply: FastifyReply) => {
      reply.header('X-Request-Id', request.id);
      const error = new AppError(
        ErrorCode.VALIDATION_FAILED,
        'The URL path is not valid (percent-encoding or length)',
      );
      const res = reply as unknown as HttpResponse;
      if (answerBrokenLink(request.raw, res, error)) return;
      sendError(res, error, answers.clock?.now() ?? new Date());
    },
  });
  // Before NestFactory registers middie: these hooks run ahead of Nest middleware.
  prepareFastify(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(root, adapter, {
    ...options,
    bodyParser: false,
  });
  answers.clock = app.get(Clock);
  return app;
}

/** Express's settings, before any middleware or route is added (Fastify's are made at creation). */
export function configureHttpServer(app: INestApplication, config: AppConfig): void {
  if (config.httpAdapter === 'fastify') return;
  const express = app as NestExpressApplication;
  // The server answers `Keep-Alive: timeout=N`; Node 24 closes an idle connection a second
  // after N (keepAliveTimeoutBuffer), so a client that heeds the header never races the close.
  (express.getHttpServer() as Server).keepAliveTimeout = config.httpKeepAliveTimeoutMs;
  express.disable('x-powered-by');
  // No ETag: API answers are read fresh, and hashing every body cost ~25 us a request (issue #12).
  express.set('etag', false);
  // The client address (rate limits, audit log) comes through these proxies only.
  express.set('trust proxy', config.trustProxy);
}

/** What Joma's middleware reads off the Node request (Express's request has it already). */
type NodeRequest = IncomingMessage & { ip?: string; path?: string; routeTemplate?: string };

/**
 * Fastify as Joma's HTTP code expects a server to be:
 * - the Node request carries what Express would give it (`ip` through the
 *   trusted proxies, `path`) before Nest middleware runs, and the matched
 *   route's template once a handler takes it (metrics, the request log);
 * - Fastify's request reads and writes what middleware and guards keep on
 *   the Node request (the authenticated app and admin, the path), so the
 *   middleware (under middie, given Node's request) and the guards, pipes
 *   and filters (given Fastify's) see one request;
 * - bodies: Joma's parsers (JSON with its member, depth and name checks,
 *   forms on the public pages, per-route limits, 413/415 envelopes) run as
 *   middleware, as under Express; Fastify's own parsers are replaced by one
 *   that takes the body they left;
 * - the registered routes are kept for the 405 answer's Allow header.
 */
function prepareFastify(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw as NodeRequest;
    dropForgedForwardedFor(raw);
    raw.ip = request.ip;
    const url = raw.url ?? '/';
    const query = url.indexOf('?');
    raw.path = query < 0 ? url : url.slice(0, query);
    done();
  });
  fastify.addHook('preHandler', (request, _reply, done) => {
    (request.raw as NodeRequest).routeTemplate = request.routeOptions.url;
    done();
  });
  for (const name of ['principalApp', 'user', 'path'] as const) {
    fastify.decorateRequest(name, {
      getter(this: FastifyRequest) {
        return (this.raw as unknown as Record<string, unknown>)[name];
      },
      setter(this: FastifyRequest, value: unknown) {
        (this.raw as unknown as Record<string, unknown>)[name] = value;
      },
    });
  }
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    done(null, (request.raw as IncomingMessage & { body?: unknown }).body);
  });
  const routes: RegisteredRoute[] = [];
  fastify.decorate('jomaRoutes', routes);
  fastify.addHook('onRoute', (route) => {
    const methods = [route.method].flat().map((m) => m.toUpperCase());
    routes.push({ methods, pattern: routePattern(route.url ?? route.path) });
  });
}

/** Express's `trust proxy` hop count: the nearest `hops` addresses are proxies. */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}
