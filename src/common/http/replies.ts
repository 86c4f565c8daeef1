import type { ServerResponse } from 'node:http';

/**
 * What a handler or filter answers with under either HTTP adapter: Node's
 * response (Express's extends it; Nest middleware gets it under Fastify too)
 * or Fastify's reply, which keeps Node's response in `raw`.
 */
export interface FastifyReplyLike {
  raw: ServerResponse;
  sent: boolean;
  statusCode: number;
  code(status: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(body?: string | Buffer): unknown;
}

export type HttpResponse = ServerResponse | FastifyReplyLike;

function isFastifyReply(res: HttpResponse): res is FastifyReplyLike {
  return 'raw' in res && typeof (res as FastifyReplyLike).code === 'function';
}

/** The Node response under either adapter (headers set on it go out with the answer). */
export function nodeResponse(res: HttpResponse): ServerResponse {
  return isFastifyReply(res) ? res.raw : res;
}

/** Whether an answer has already gone out. */
export function answered(res: HttpResponse): boolean {
  return isFastifyReply(res) ? res.sent : res.headersSent;
}

/**
 * The one way Joma writes a whole answer itself (error envelopes, hosted
 * pages, redirects), the same bytes under Express and Fastify: status,
 * headers, and a body with its length. (HEAD answers carry no body: Node
 * drops it.)
 */
export function sendBody(
  res: HttpResponse,
  status: number,
  headers: Record<string, string>,
  body: string | Buffer = '',
): void {
  if (isFastifyReply(res)) {
    res.code(status).headers(headers).send(body);
    return;
  }
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function sendJson(
  res: HttpResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendBody(
    res,
    status,
    { ...headers, 'Content-Type': 'application/json; charset=utf-8' },
    JSON.stringify(body),
  );
}

/** 303 See Other to `url` (characters a header cannot carry are percent-encoded). */
export function redirectSeeOther(res: HttpResponse, url: string): void {
  // Per code point (`u`), so a character outside the BMP is encoded whole, never as half a pair.
  sendBody(res, 303, { Location: url.replace(/[^\x21-\x7e]/gu, encodeURIComponent) });
}
