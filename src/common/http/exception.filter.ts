import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { Clock } from '../clock/clock';
import { sendError, toClientError } from './error-response';
import type { JomaRequest } from './request-context';

/** The one exception filter: everything thrown becomes an error envelope. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly clock: Clock) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<JomaRequest>();
    const res = http.getResponse<Response>();
    sendError(res, req, toClientError(exception, req.id ?? 'unknown'), this.clock.now());
  }
}
