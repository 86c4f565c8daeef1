import { type HttpResponse, sendBody } from '../http/replies';

/**
 * The headers every hosted page (pay page, sandbox checkout, payment result)
 * is served with: never cached, no scripts at all, no framing (clickjacking),
 * no referrer leaking the capability URL, forms posting only to http(s).
 * Images: the merchant's logo (http(s), see `safeUrl`) and `data:` for the
 * empty icon every page declares, so a browser never asks for /favicon.ico
 * (a 404, and a warning in the request log, on every visit).
 */
export const HOSTED_PAGE_CSP =
  "default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'";

const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': HOSTED_PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Type': 'text/html; charset=utf-8',
};

export function sendHtml(
  res: HttpResponse,
  html: string,
  status = 200,
  headers: Record<string, string> = {},
): void {
  sendBody(res, status, { ...PAGE_HEADERS, ...headers }, html);
}
