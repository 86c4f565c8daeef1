import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * `X-Forwarded-For` whose entries are not all IP addresses is ignored
 * (decisions section 14): a proxy writes addresses, so anything else was
 * written by the client, and taking it as the client address would let any
 * string stand for a rate-limit or login-throttle key. The header is
 * removed before the server computes the client address (Express's
 * `req.ip` and Fastify's `request.ip` read it lazily), which then is the
 * socket's.
 */
export function dropForgedForwardedFor(req: IncomingMessage): void {
  const header = req.headers['x-forwarded-for'];
  if (header === undefined) return;
  const values = Array.isArray(header) ? header.join(',') : header;
  for (const entry of values.split(',')) {
    if (isIP(entry.trim()) === 0) {
      delete req.headers['x-forwarded-for'];
      return;
    }
  }
}
