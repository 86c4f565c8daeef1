import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * Response headers every route gets (helmet): `nosniff`, no framing
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
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
    base(req, res, next);
  };
}
