import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { resolveTarget } from '../security/target-resolver';
import { sendWebhook } from './http-sender';

describe('webhook HTTP sender', () => {
  let server: Server;
  let port: number;
  let seen: { host?: string; body: string; headers: IncomingMessage['headers'] }[];
  let handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => handler(req, res));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });
  beforeEach(() => {
    seen = [];
    handler = (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ host: req.headers.host, body, headers: req.headers });
        res.writeHead(200).end('ok');
      });
    };
  });

  it('connects to the address resolved once and checked, not to a second lookup (no rebinding window)', async () => {
    const lookups: string[] = [];
    // A hostile resolver would answer differently the second time; the sender never asks again.
    const resolveAll = async (host: string) => {
      lookups.push(host);
      return lookups.length === 1
        ? [{ address: '127.0.0.1', family: 4 }]
        : [{ address: '10.0.0.1', family: 4 }];
    };
    const url = new URL(`http://rebind.example.test:${port}/hook?x=1`);
    const target = await resolveTarget(url.hostname, { allowPrivate: true, resolveAll });
    const out = await sendWebhook({
      url,
      target,
      headers: { 'X-Webhook-Id': '5' },
      body: Buffer.from('{"a":1}'),
      timeoutMs: 2000,
    });
    expect(out).toEqual({ statusCode: 200, excerpt: 'ok', error: null });
    expect(lookups).toEqual(['rebind.example.test']);
    expect(seen).toHaveLength(1);
    expect(seen[0].host).toBe(`rebind.example.test:${port}`);
    expect(seen[0].body).toBe('{"a":1}');
    expect(seen[0].headers['content-length']).toBe('7');
  });

  it('refuses a host with any private answer when the guard is on', async () => {
    const resolveAll = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    await expect(
      resolveTarget('mixed.example.test', { allowPrivate: false, resolveAll }),
    ).rejects.toMatchObject({ code: 'TARGET_NOT_ALLOWED' });
    await expect(resolveTarget('10.1.1.1', { allowPrivate: false })).rejects.toMatchObject({
      code: 'TARGET_NOT_ALLOWED',
    });
    await expect(
      resolveTarget('nothing.invalid', {
        allowPrivate: false,
        resolveAll: async () => {
          throw Object.assign(new Error('no'), { code: 'ENOTFOUND' });
        },
      }),
    ).rejects.toMatchObject({ code: 'DNS_FAILED' });
  });

  it('gives up at the deadline when the consumer never answers', async () => {
    handler = () => undefined;
    const url = new URL(`http://127.0.0.1:${port}/slow`);
    const out = await sendWebhook({
      url,
      target: { address: '127.0.0.1', family: 4 },
      headers: {},
      body: Buffer.from('{}'),
      timeoutMs: 150,
    });
    expect(out.statusCode).toBeNull();
    expect(out.error).toMatch(/^TIMEOUT/);
  });

  it('keeps only the first 1 KiB of a response and reports connection errors', async () => {
    handler = (_req, res) => res.writeHead(500).end('é'.repeat(2000));
    const url = new URL(`http://127.0.0.1:${port}/big`);
    const out = await sendWebhook({
      url,
      target: { address: '127.0.0.1', family: 4 },
      headers: {},
      body: Buffer.from('{}'),
      timeoutMs: 2000,
    });
    expect(out.statusCode).toBe(500);
    expect(Buffer.byteLength(out.excerpt!.replace(/\ufffd$/, ''))).toBeLessThanOrEqual(1024);
    expect(out.excerpt!.startsWith('éé')).toBe(true);

    const closed = await sendWebhook({
      url: new URL('http://127.0.0.1:9/'),
      target: { address: '127.0.0.1', family: 4 },
      headers: {},
      body: Buffer.from('{}'),
      timeoutMs: 2000,
    });
    expect(closed).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/^ECONNREFUSED/),
    });
  });

  it('stops at once when aborted', async () => {
    handler = () => undefined;
    const abort = new AbortController();
    const pending = sendWebhook({
      url: new URL(`http://127.0.0.1:${port}/x`),
      target: { address: '127.0.0.1', family: 4 },
      headers: {},
      body: Buffer.from('{}'),
      timeoutMs: 60_000,
      signal: abort.signal,
    });
    setTimeout(() => abort.abort(), 20);
    expect((await pending).error).toMatch(/^ABORTED/);
  });
});
