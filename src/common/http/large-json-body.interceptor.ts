import type { IncomingMessage } from 'node:http';

import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { from, Observable, switchMap } from 'rxjs';

import { MAX_SETTLEMENT_BODY_BYTES } from './body-parsers';
import { readLargeJson } from './large-json-body';

type BodyHolder = { body?: unknown; raw?: IncomingMessage & { body?: unknown } };

/**
 * For a route whose body the parsers left unread (body-parsers.ts: the
 * settlement import): reads it here, after the guards verified the admin
 * session and the permission, and before the pipes validate `@Body()`.
 * Works on Express's request and on Fastify's (whose Node request is `raw`).
 */
@Injectable()
export class LargeJsonBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<BodyHolder & IncomingMessage>();
    const node = req.raw ?? req;
    return from(readLargeJson(node, MAX_SETTLEMENT_BODY_BYTES)).pipe(
      switchMap((body) => {
        req.body = body;
        if (req.raw) req.raw.body = body;
        return next.handle();
      }),
    );
  }
}
