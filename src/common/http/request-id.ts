import { randomUUID } from 'node:crypto';
import type { NextFunction, Response } from 'express';
import type { JomaRequest } from './request-context';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reuses a sane client-sent X-Request-Id, else mints one; echoes it back. */
export function requestIdMiddleware(req: JomaRequest, res: Response, next: NextFunction): void {
  const sent = req.header('x-request-id');
  req.id = sent && CLIENT_ID.test(sent) ? sent : randomUUID();
  res.setHeader('X-Request-Id', req.id);
  next();
}
