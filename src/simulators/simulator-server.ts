import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { fixture, shaped } from './gateway-shapes';

/**
 * What the gateway simulators share (decisions section 17): where they are
 * served (their own loopback server, or mounted in the service under
 * /simulators/... in TEST mode), the origin of their customer pages, and
 * the switch that holds requests (a gateway that hangs, for tests).
 */
export abstract class SimulatorServer {
  /** The base URL the adapter is pointed at (SSLCOMMERZ_SANDBOX_URL, BKASH_SANDBOX_URL). */
  baseUrl = '';
  /** The path the simulator is served under ('' on its own server). */
  mountPath = '';
  /**
   * The host name of the customer's pages. `localhost` against Joma's
   * 127.0.0.1 puts them on another site (sites ignore ports), as the real
   * gateway's pages are: the way back to Joma is then cross-site.
   */
  pageHost = '';
  private server?: Server;
  private release: (() => void)[] = [];

  /** `apiSuffix`: what follows the mount path in the adapter's base URL (bKash's API version). */
  protected constructor(
    readonly gateway: string,
    private readonly apiSuffix = '',
  ) {}

  abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;

  /** Serves it on its own loopback server (port 0: any free one). */
  async start(port = 0, host = '127.0.0.1', mountPath = ''): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((ok) => this.server!.listen(port, host, ok));
    const bound = (this.server.address() as AddressInfo).port;
    return this.mountAt(`http://${host}:${bound}`, mountPath);
  }

  /** Served by someone else's server at `origin` + `mountPath` (the service's, or the simulators' own). */
  mountAt(origin: string, mountPath: string): this {
    this.mountPath = mountPath;
    this.baseUrl = `${origin}${mountPath}${this.apiSuffix}`;
    this.pageHost ||= new URL(origin).hostname;
    return this;
  }

  async stop(): Promise<void> {
    this.unhang();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server!.close(() => ok()));
  }

  /** Answers the requests held while hanging, and stops holding new ones. */
  unhang(): void {
    this.onUnhang();
    for (const r of this.release.splice(0)) r();
  }

  /** How many requests are held. */
  get waiting(): number {
    return this.release.length;
  }

  protected onUnhang(): void {}

  protected held(): Promise<void> {
    return new Promise<void>((ok) => this.release.push(ok));
  }

  /** The request's URL with the mount path taken off (Express strips it from `url` when mounted). */
  protected localUrl(req: IncomingMessage): URL {
    const raw = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const url = new URL(raw, 'http://simulator');
    if (this.mountPath && url.pathname.startsWith(this.mountPath))
      url.pathname = url.pathname.slice(this.mountPath.length) || '/';
    return url;
  }

  /**
   * An answer as this gateway's published fixture `name` gives it (its HTTP
   * status and shape), with `values` in it (decisions section 19).
   */
  protected answer(res: ServerResponse, name: string, values: Record<string, unknown> = {}): void {
    const f = fixture(this.gateway, name);
    this.send(
      res,
      f.response?.status ?? 200,
      JSON.stringify(shaped(f.response?.body, values)),
      'application/json',
    );
  }

  protected json(res: ServerResponse, body: unknown): void {
    this.send(res, 200, JSON.stringify(body), 'application/json');
  }

  protected send(res: ServerResponse, status: number, body: string, type = 'text/plain'): void {
    if (res.writableEnded) return;
    res.writeHead(status, { 'content-type': `${type}; charset=utf-8` }).end(body);
  }
}

/** The origin of a simulator's customer pages: its base URL's, under `host`. */
export function pageOrigin(baseUrl: string, host: string): string {
  const url = new URL(baseUrl);
  if (host) url.hostname = host;
  return url.origin;
}

export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}
