import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  IncomingHttpHeaders,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  /** Lower-cased header names, as node gives them. */
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  raw: Buffer;
  /** Path and query of the request. */
  path: string;
  /** Wall-clock ms at arrival. */
  receivedAt: number;
  id: number;
}

/** What the receiver does with a request: answer with a status (and body), or never answer. */
export type Reply =
  | number
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }
  | 'hang';

/**
 * A real HTTP consumer on 127.0.0.1 for e2e tests: records every request's
 * raw bytes and headers, answers as told (200 by default, any status, or
 * never), and can be awaited for a number of requests.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private reply: (req: ReceivedWebhook, index: number) => Reply = () => 200;
  private waiters: (() => void)[] = [];
  private hanging: ServerResponse[] = [];
  /** TCP connections accepted so far (keep-alive reuse shows as fewer than requests). */
  connections = 0;
  /** Requests being answered right now, and the most there ever were at once. */
  private open = 0;
  maxConcurrent = 0;

  private constructor(private readonly server: Server) {}

  static async start(
    reply?: (req: ReceivedWebhook, index: number) => Reply,
  ): Promise<WebhookReceiver> {
    // The handler runs only after listen(), by which time `self` is set.
    const server = createServer((req, res) => self.handle(req, res));
    const self = new WebhookReceiver(server);
    server.on('connection', () => self.connections++);
    if (reply) self.reply = reply;
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    return self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  respondWith(reply: (req: ReceivedWebhook, index: number) => Reply): void {
    this.reply = reply;
  }

  ids(): number[] {
    return this.received.map((r) => r.id);
  }

  /** Resolves once at least `count` requests have arrived; fails after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `receiver got ${this.received.length} of ${count} expected requests within ${timeoutMs} ms`,
        );
      await new Promise<void>((ok) => {
        const t = setTimeout(ok, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          ok();
        });
      });
    }
    return this.received.slice(0, count);
  }

  /** Answers every request left hanging (status 200) without closing the server. */
  releaseHanging(status = 200): void {
    for (const res of this.hanging.splice(0))
      if (!res.writableEnded && !res.destroyed) res.writeHead(status).end();
  }

  async close(): Promise<void> {
    for (const res of this.hanging.splice(0)) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.open++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.open);
    res.on('close', () => this.open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const entry: ReceivedWebhook = {
        headers: req.headers,
        raw,
        path: req.url ?? '',
        receivedAt: Date.now(),
        id: Number(req.headers['x-webhook-id']),
      };
      const index = this.received.length;
      this.received.push(entry);
      for (const w of this.waiters.splice(0)) w();
      const reply = this.reply(entry, index);
      if (reply === 'hang') {
        this.hanging.push(res);
        return;
      }
      const r = typeof reply === 'number' ? { status: reply } : reply;
      const answer = () => {
        res.writeHead(r.status, { 'Content-Type': 'text/plain', ...(r.headers ?? {}) });
        res.end(r.body ?? '');
      };
      if (r.delayMs) setTimeout(answer, r.delayMs);
      else answer();
    });
  }
}

/** Consumer-side check of X-Webhook-Signature (v1): HMAC over the raw bytes, constant-time compare. */
export function verifyV1(
  secret: string,
  raw: Buffer,
  header: string | string[] | undefined,
): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Consumer-side check of X-Webhook-Signature-V2 (`t=<unix>,v1=<hex>` over "<t>." + raw), with a tolerance. */
export function verifyV2(
  secret: string,
  raw: Buffer,
  header: string | string[] | undefined,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  if (typeof header !== 'string') return false;
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(
    createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex'),
  );
  const given = Buffer.from(m[2]);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
