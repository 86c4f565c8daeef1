import type { IncomingMessage, ServerResponse } from 'node:http';

import { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { Response } from 'express';
import { Logger } from 'nestjs-pino';

import { appCallLimit, AppCredentialsService } from '../auth';
import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import { bodyParsers, isPublicPage } from '../common/http/body-parsers';
import { sendError } from '../common/http/error-response';
import { dropForgedForwardedFor } from '../common/http/forwarded-for';
import { inOrder } from '../common/http/in-order';
import { observeRequests } from '../common/http/logging';
import type { JomaRequest } from '../common/http/request-context';
import { requestIdMiddleware } from '../common/http/request-id';
import { createValidationPipe } from '../common/http/validation';
import { Metrics } from '../common/metrics/metrics';
import { RateLimiter } from '../common/rate-limit/rate-limiter';
import { AppConfig, SIMULATOR_MOUNTS } from '../config/app-config';
import { type Simulators, simulatorsAt } from '../simulators/simulators';
import { configureHttpServer } from './http-adapter';
import { QuietBootLogger } from './quiet-boot-logger';
import { securityHeaders } from './security-headers';
import { setupSwagger } from './swagger';

/**
 * Everything an app instance needs beyond its modules, shared by `main.ts`
 * and the test app factory so tests run the real HTTP stack.
 */
export function configureApp(
  app: INestApplication,
  options: { openApiDocument?: OpenAPIObject } = {},
): void {
  const clock = app.get(Clock);
  const metrics = app.get(Metrics);
  const config = app.get(AppConfig);
  const refuse = (err: AppError, _req: JomaRequest, res: Response) =>
    sendError(res, err, clock.now());
  // A rate-limit refusal yields to work already waiting: it is answered after
  // the I/O callbacks this turn of the event loop has ready (the accepted
  // requests' database answers among them), so in a flood the 429s' socket
  // writes do not run ahead of the requests the service took.
  const shed = (err: AppError, req: JomaRequest, res: Response) =>
    void setImmediate(refuse, err, req, res);
  app.useLogger(new QuietBootLogger(app.get(Logger)));
  configureHttpServer(app, config);
  // Development only (GATEWAY_SIMULATORS=true; refused in production): the
  // gateway simulators, ahead of body parsing, which they do themselves.
  if (config.gatewaySimulators) {
    // Made at the first request: the service's public URL is known by then.
    let simulators: Simulators | undefined;
    app.use((req: IncomingMessage, res: ServerResponse, next: () => void) => {
      simulators ??= simulatorsAt(new URL(config.publicBaseUrl).origin, SIMULATOR_MOUNTS);
      if (!simulators.route(req, res)) next();
    });
  }
  const limits = app.get(RateLimiter);
  // Every request's basics, in this order, as one layer of the server's chain
  // (each layer costs a route match and garbage, refusals included).
  app.use(
    inOrder(
      (req: JomaRequest, _res: Response, next: () => void) => {
        dropForgedForwardedFor(req);
        // List cursors are signed with this deployment's key (common/http/pagination.ts).
        req.cursorKey = config.cursorKey;
        next();
      },
      securityHeaders(config.publicBaseUrl),
      requestIdMiddleware,
      observeRequests(metrics),
      // Rate limits before bodies are read: public pages per client address, and
      // app calls whose key this replica has cached (the rest in the app-key guard).
      publicPageLimit(limits, shed),
      appCallLimit(app.get(AppCredentialsService), limits, shed),
      ...bodyParsers(refuse),
    ),
  );
  app.useGlobalPipes(createValidationPipe());
  setupSwagger(app, options.openApiDocument);
}

/** PUBLIC_RATE_LIMIT_PER_SECOND on the pay pages, the sandbox checkout and gateway callbacks. */
function publicPageLimit(
  limits: RateLimiter,
  refuse: (err: AppError, req: JomaRequest, res: Response) => void,
) {
  return (req: JomaRequest, res: Response, next: () => void) => {
    if (!isPublicPage(req.path)) return next();
    const refusal = limits.clientRefusal(req.ip);
    if (refusal) return refuse(refusal, req, res);
    next();
  };
}
