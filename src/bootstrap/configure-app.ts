import { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { Clock } from '../common/clock/clock';
import { bodyParsers } from '../common/http/body-parsers';
import { sendError } from '../common/http/error-response';
import type { JomaRequest } from '../common/http/request-context';
import { requestIdMiddleware } from '../common/http/request-id';
import { createValidationPipe } from '../common/http/validation';
import { Metrics } from '../common/metrics/metrics';
import { QuietBootLogger } from './quiet-boot-logger';
import { setupSwagger } from './swagger';
import { securityHeaders } from './security-headers';
import { AppConfig } from '../config/app-config';

/**
 * Everything an app instance needs beyond its modules, shared by `main.ts`
 * and the test app factory so tests run the real HTTP stack.
 */
export function configureApp(nest: INestApplication): void {
  const app = nest as NestExpressApplication;
  const clock = app.get(Clock);
  const metrics = app.get(Metrics);
  app.useLogger(new QuietBootLogger(app.get(Logger)));
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(securityHeaders(app.get(AppConfig).publicBaseUrl));
  app.use(requestIdMiddleware);
  app.use((req: JomaRequest, res: import('express').Response, next: () => void) => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      const labels = { method: req.method, route: `${req.baseUrl ?? ''}${route}` };
      end(labels);
      metrics.httpRequests.inc({ ...labels, status: String(res.statusCode) });
    });
    next();
  });
  for (const parser of bodyParsers((err, req, res) => sendError(res, req, err, clock.now())))
    app.use(parser);
  app.useGlobalPipes(createValidationPipe());
  setupSwagger(app);
}
