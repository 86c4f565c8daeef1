import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createJomaClient, JomaApiError, unwrap } from '../src';

/** The client's retries and Idempotency-Keys against a scripted server on 127.0.0.1. */
describe('@joma/client retries and idempotency keys', () => {
  let server: Server;
  let baseUrl: string;
  type Answer = { status: number; headers?: Record<string, string>; body?: unknown };
  let script: ('drop' | ((req: IncomingMessage) => Answer))[];
  let seen: { method: string; url: string; key?: string }[];
  const waits: number[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({
        method: req.method!,
        url: req.url!,
        key: req.headers['idempotency-key'] as string,
      });
      const step = script.shift() ?? ((): Answer => ({ status: 500 }));
      const next = step === 'drop' ? step : step(req);
      if (next === 'drop') return req.socket.destroy();
      res.writeHead(next.status, {
        'content-type': 'application/json',
        'x-request-id': 'rid-1',
        ...next.headers,
      });
      res.end(JSON.stringify(next.body ?? {}));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => {
    seen = [];
    waits.length = 0;
  });

  const client = () =>
    createJomaClient({
      baseUrl,
      apiKey: 'pk_test_x',
      apiSecret: 'sk_test_y',
      retry: { retries: 3, sleep: async (ms) => void waits.push(ms) },
    });
  const ok = (data: unknown) => () => ({ status: 200, body: { data, meta: {}, pagination: {} } });
  const error = (status: number, errorCode: string, headers?: Record<string, string>) => () => ({
    status,
    headers,
    body: { data: null, meta: { success: false, message: errorCode, errorCode } },
  });

  it('waits what Retry-After says on 429 and succeeds', async () => {
    script = [error(429, 'RATE_LIMITED', { 'retry-after': '2' }), ok({ id: 1 })];
    const payment = await unwrap(
      client().GET('/api/v1/payments/{id}', { params: { path: { id: 1 } } }),
    );
    expect(payment).toEqual({ id: 1 });
    expect(waits).toEqual([2000]);
    expect(seen).toHaveLength(2);
  });

  it('gives every create one Idempotency-Key, the same on each retry, and retries 503 and dropped connections', async () => {
    script = [
      error(503, 'SERVICE_UNAVAILABLE'),
      'drop',
      () => ({ status: 201, body: { data: { id: 9 } } }),
    ];
    const created = await unwrap(
      client().POST('/api/v1/payments', { body: { amountMinor: 1000, customerReference: 'c' } }),
    );
    expect(created).toEqual({ id: 9 });
    expect(seen.map((s) => s.key)).toEqual([seen[0].key, seen[0].key, seen[0].key]);
    expect(seen[0].key).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps a key the caller gives', async () => {
    script = [() => ({ status: 201, body: { data: { id: 3 } } })];
    await client().POST('/api/v1/payments', {
      body: { amountMinor: 1000, customerReference: 'c' },
      headers: { 'Idempotency-Key': 'order-77' },
    });
    expect(seen[0].key).toBe('order-77');
  });

  it('does not retry what is not safe to repeat: a 503 or a dropped connection on a create without a key', async () => {
    script = [error(503, 'SERVICE_UNAVAILABLE')];
    const res = await client().POST('/api/v1/admin/apps', { body: { name: 'x' } });
    expect(res.response.status).toBe(503);
    expect(seen).toHaveLength(1);
    expect(seen[0].key).toBeUndefined();
    script = ['drop'];
    await expect(client().POST('/api/v1/admin/apps', { body: { name: 'x' } })).rejects.toThrow();
    expect(seen).toHaveLength(2);
  });

  it('turns an error envelope into a JomaApiError with its code, details and request id', async () => {
    script = [error(404, 'RESOURCE_NOT_FOUND')];
    const failure = await unwrap(
      client().GET('/api/v1/invoices/{id}', { params: { path: { id: 5 } } }),
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(JomaApiError);
    expect(failure).toMatchObject({
      status: 404,
      errorCode: 'RESOURCE_NOT_FOUND',
      requestId: 'rid-1',
    });
  });
});
