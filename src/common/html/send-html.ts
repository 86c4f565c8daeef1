import type { Response } from 'express';

/**
 * The headers every hosted page (pay page, sandbox checkout, payment result)
 * is served with: never cached, no scripts at all, no framing (clickjacking),
 * no referrer leaking the capability URL, forms posting only to http(s).
 */
export const HOSTED_PAGE_CSP =
  "default-src 'none'; img-src https: http:; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'";

export function sendHtml(res: Response, html: string, status = 200): void {
  res
    .status(status)
    .setHeader('Cache-Control', 'no-store')
    .setHeader('Content-Security-Policy', HOSTED_PAGE_CSP)
    .setHeader('Referrer-Policy', 'no-referrer')
    .setHeader('X-Content-Type-Options', 'nosniff')
    .setHeader('X-Frame-Options', 'DENY')
    .type('html')
    .send(html);
}
