import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';

/**
 * The merchant's webhook endpoint: records every delivery it receives (by
 * `X-Webhook-Id`, the delivery id) after verifying both signatures as
 * docs/webhooks.md says (v1 over the raw body; v2 over `t.body`, within 300
 * seconds). A delivery with a bad signature is answered 400 and counted.
 */
export class WebhookReceiver {
  readonly received = new Map<number, { event: string; times: number }>();
  badSignatures = 0;
  secret = '';
  private server?: Server;

  async listen(port: number): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        if (!this.verified(raw, req.headers)) {
          this.badSignatures++;
          res.writeHead(400).end('bad signature');
          return;
        }
        const id = Number(req.headers['x-webhook-id']);
        const seen = this.received.get(id);
        if (seen) seen.times++;
        else this.received.set(id, { event: String(req.headers['x-webhook-event']), times: 1 });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((ok) => this.server!.listen(port, '127.0.0.1', ok));
  }

  private verified(raw: Buffer, headers: Record<string, string | string[] | undefined>): boolean {
    if (!this.secret) return false;
    const hmac = (data: Buffer | string) =>
      createHmac('sha256', this.secret).update(data).digest('hex');
    const same = (a: string, b: string) =>
      a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
    const v1 = String(headers['x-webhook-signature'] ?? '');
    const v2 = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(headers['x-webhook-signature-v2'] ?? ''));
    if (!v2 || Math.abs(Date.now() / 1000 - Number(v2[1])) > 300) return false;
    return same(v1, hmac(raw)) && same(v2[2], hmac(Buffer.concat([Buffer.from(`${v2[1]}.`), raw])));
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }
}
