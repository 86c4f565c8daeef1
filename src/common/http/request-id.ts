import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A sane client-sent X-Request-Id, else a fresh one. */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && CLIENT_ID.test(sent) ? sent : randomUUID();
}

/**
 * Gives the request its id (under Fastify, the one Fastify's `genReqId`
 * already gave it with `requestIdOf`) and echoes it back.
 */
export function requestIdMiddleware(
  req: IncomingMessage & { id?: string },
  res: ServerResponse,
  next: () => void,
): void {
  req.id ??= requestIdOf(req);
  res.setHeader('X-Request-Id', req.id);
  next();
}
