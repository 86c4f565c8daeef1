import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
  StreamableFile,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, Observable } from 'rxjs';

import { Clock } from '../clock/clock';
import { successEnvelope } from './envelope';

const SKIP_ENVELOPE = 'joma:skip-envelope';
const RESPONSE_MESSAGE = 'joma:response-message';

/** For handlers that answer HTML, text or redirects rather than JSON. */
export const SkipEnvelope = () => SetMetadata(SKIP_ENVELOPE, true);
/** The human message placed in meta.message on success. */
export const ResponseMessage = (message: string) => SetMetadata(RESPONSE_MESSAGE, message);

/** The one envelope interceptor: wraps every JSON success response. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly clock: Clock,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(SKIP_ENVELOPE, targets)) return next.handle();
    const message = this.reflector.getAllAndOverride<string>(RESPONSE_MESSAGE, targets) ?? 'OK';
    return next.handle().pipe(
      map((data) =>
        // A file (a list's CSV export) goes out as it is.
        data instanceof StreamableFile ? data : successEnvelope(data, message, this.clock.now()),
      ),
    );
  }
}
