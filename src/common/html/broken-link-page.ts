import type { IncomingHttpHeaders } from 'node:http';

import type { AppError } from '../errors/app-error';
import { ErrorCode, httpStatusOf } from '../errors/error-code';
import { answered, type HttpResponse } from '../http/replies';
import { notFoundPage } from './html';
import { INVALID_LINK, type Lang, pickLang } from './language';
import { sendHtml } from './send-html';

const WORDS: Record<Lang, readonly [string, string]> = {
  en: ['Page not found', INVALID_LINK.en],
  bn: ['পেজ পাওয়া যায়নি', INVALID_LINK.bn],
};

/** The gateways' return, where a customer's browser comes back from paying. */
const GATEWAY_RETURN = /^\/api\/v1\/gateways\/[^/]+\/return\/?$/i;

/** What is read off the request: Express's, or Node's own (Fastify's router refusing a URL). */
interface PageRequest {
  method?: string;
  url?: string;
  originalUrl?: string;
  headers: IncomingHttpHeaders;
  query?: unknown;
}

/**
 * Whether a request is a customer's browser opening a hosted page: a GET (or
 * HEAD) under /pay (pay page, receipt, payment result), or the gateways'
 * return by any method (SSLCommerz comes back with a form post).
 */
function isCustomerPage(req: PageRequest): boolean {
  const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
  if (GATEWAY_RETURN.test(path)) return true;
  return (req.method === 'GET' || req.method === 'HEAD') && /^\/pay(\/|$)/i.test(path);
}

/**
 * A payment link that leads nowhere (a path under /pay that no page answers,
 * a mangled escape such as `%ff`) is answered with the hosted pages' 404 in
 * the customer's language (`?lang=`, the kept choice, Accept-Language) and
 * the error's own status, instead of the API's JSON envelope. Returns whether
 * it answered; every other error is left to the envelope. Used by the one
 * exception filter, and by Fastify's router refusal, which comes before it.
 */
export function answerBrokenLink(req: PageRequest, res: HttpResponse, error: AppError): boolean {
  if (error.code !== ErrorCode.ROUTE_NOT_FOUND && error.code !== ErrorCode.VALIDATION_FAILED)
    return false;
  if (!isCustomerPage(req) || answered(res)) return false;
  const query = req.query as Record<string, unknown> | undefined;
  const accept = req.headers['accept-language'];
  const lang = pickLang(
    query?.lang,
    req.headers.cookie,
    typeof accept === 'string' ? accept : undefined,
  );
  sendHtml(res, notFoundPage(WORDS[lang], lang), httpStatusOf(error.code));
  return true;
}
