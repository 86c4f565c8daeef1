import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * Response headers every route gets (helmet's, computed once): `nosniff`, no framing
 * (`X-Frame-Options: DENY`, so Swagger UI cannot be framed), no referrer,
 * HSTS when the public base URL is https; and `Cache-Control: no-store` on
 * every `/api/v1` response, which carry tokens, secrets and customer data.
 * The hosted pages set their own strict Content-Security-Policy; Swagger UI
 * needs its inline scripts, so helmet's CSP stays off here.
 */
export function securityHeaders(publicBaseUrl: string): RequestHandler {
  const https = publicBaseUrl.startsWith('https://');
  const base = helmet({
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: https ? { maxAge: 15552000, includeSubDomains: true } : false,
  });
  const headers = headersSetBy(base);
  return (req: Request, res: Response, next: NextFunction) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    // Routing ignores letter case, so /API/v1 reaches the same handlers and needs the same header.
    if (req.url.length > 4 && req.url.slice(0, 5).toLowerCase() === '/api/')
      res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

/**
 * The headers helmet sets, found once at start-up by running it against a
 * stand-in response: the same headers on every response, without running
 * helmet's dozen middlewares per request. (With these options helmet only
 * sets fixed headers; it reads nothing from the request.)
 */
function headersSetBy(middleware: RequestHandler): [string, string][] {
  const headers: [string, string][] = [];
  const res = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  middleware({ headers: {} } as Request, res as unknown as Response, () => undefined);
  return headers;
}
