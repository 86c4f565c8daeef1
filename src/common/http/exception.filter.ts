import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';

import { Clock } from '../clock/clock';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { answerBrokenLink } from '../html/broken-link-page';
import { allowedMethods } from './allowed-methods';
import { sendError, toClientError } from './error-response';
import type { HttpResponse } from './replies';
import type { JomaRequest } from './request-context';

/**
 * The one exception filter: everything thrown becomes an error envelope,
 * except where a customer's browser followed a payment link that leads
 * nowhere (no such page, a mangled escape): that gets the hosted pages' 404
 * in the customer's language, with the same status.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly clock: Clock) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<JomaRequest>();
    const res = http.getResponse<HttpResponse>();
    let error = toClientError(exception, req.id ?? 'unknown');
    if (error.code === ErrorCode.ROUTE_NOT_FOUND) {
      // The path exists with other methods: say which (405 with Allow), not "no such route".
      const allow = allowedMethods(req);
      if (allow.length > 0 && !allow.includes(req.method)) {
        error = new AppError(
          ErrorCode.METHOD_NOT_ALLOWED,
          `${req.method} is not allowed on ${req.path}; use ${allow.join(', ')}`,
          undefined,
          { Allow: allow.join(', ') },
        );
      }
    }
    if (answerBrokenLink(req, res, error)) return;
    sendError(res, error, this.clock.now());
  }
}
