import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { SkipEnvelope } from '../common/http/envelope.interceptor';
import { type HttpResponse, sendBody } from '../common/http/replies';
import { dashboardDir, type DashboardFile, loadDashboard, pickEncoding } from './dashboard-files';

/**
 * Scripts and styles only from the service itself, requests only to it, no
 * framing, no inline code at all (decisions section 15). Images: the
 * service's own and data: URLs (the empty icon).
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Joma dashboard</title></head><body><h1>The dashboard is not built</h1><p>Run <code>npm start</code> (it builds the dashboard) or <code>node scripts/build-dashboard.mjs</code>, then reload.</p></body></html>`;

/**
 * The web console of decisions section 15 at /dashboard, built by
 * scripts/build-dashboard.mjs (npm start builds it when stale). Every action
 * it offers goes through the documented /api/v1 routes with the signed-in
 * admin's token; this controller only serves its files.
 */
@ApiExcludeController()
@SkipEnvelope()
@Controller()
export class DashboardController {
  private files: Map<string, DashboardFile> | null = null;

  private built(): Map<string, DashboardFile> | null {
    if (!this.files) {
      const dir = dashboardDir();
      if (dir) this.files = loadDashboard(dir);
    }
    return this.files;
  }

  @Get()
  root(@Res() res: HttpResponse): void {
    sendBody(res, 302, { Location: '/dashboard/' });
  }

  @Get('dashboard')
  page(@Headers('accept-encoding') accept: string | undefined, @Res() res: HttpResponse): void {
    this.send(res, 'index.html', accept);
  }

  @Get('dashboard/:file')
  asset(
    @Param('file') name: string,
    @Headers('accept-encoding') accept: string | undefined,
    @Res() res: HttpResponse,
  ): void {
    this.send(res, name === '' ? 'index.html' : name, accept);
  }

  private send(res: HttpResponse, name: string, accept: string | undefined): void {
    const files = this.built();
    const page = name === 'index.html';
    const headers: Record<string, string> = {
      'Content-Security-Policy': DASHBOARD_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    };
    if (!files) {
      return sendBody(
        res,
        503,
        { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' },
        NOT_BUILT,
      );
    }
    const file = files.get(name);
    if (!file) {
      return sendBody(
        res,
        404,
        { ...headers, 'Content-Type': 'text/plain; charset=utf-8' },
        'Not found',
      );
    }
    const { body, encoding } = pickEncoding(file, accept);
    if (encoding) headers['Content-Encoding'] = encoding;
    sendBody(
      res,
      200,
      {
        ...headers,
        'Content-Type': file.type,
        Vary: 'Accept-Encoding',
        // The page names the current build's files; the files' names carry their content hash.
        'Cache-Control': page ? 'no-cache' : 'public, max-age=31536000, immutable',
      },
      body,
    );
  }
}
