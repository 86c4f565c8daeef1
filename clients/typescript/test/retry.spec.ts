import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { createJomaClient, JomaApiError, JomaTimeoutError, retryAfterMs, unwrap } from '../src';

/** The client's retries and Idempotency-Keys against a scripted server on 127.0.0.1. */
describe('@joma/client retries and idempotency keys', () => {
  let server: Server;
  let baseUrl: string;
  type Answer = { status: number; headers?: Record<string, string>; body?: unknown };
  let script: ('drop' | 'hang' | ((req: IncomingMessage) => Answer))[];
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
      const next = step === 'drop' || step === 'hang' ? step : step(req);
      if (next === 'drop') return req.socket.destroy();
      if (next === 'hang') return; // never answers
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
  afterAll(
    () =>
      new Promise((r) => {
        server.close(r);
        server.closeAllConnections();
      }),
  );
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

  it('reads Retry-After as an HTTP-date too, and retries a GET on 502 and 504', async () => {
    const inTwoSeconds = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000).toUTCString();
    script = [
      error(503, 'SERVICE_UNAVAILABLE', { 'retry-after': inTwoSeconds }),
      () => ({ status: 502, body: 'bad gateway' }),
      () => ({ status: 504, body: 'gateway timeout' }),
      ok({ id: 4 }),
    ];
    const payment = await unwrap(
      client().GET('/api/v1/payments/{id}', { params: { path: { id: 4 } } }),
    );
    expect(payment).toEqual({ id: 4 });
    expect(seen).toHaveLength(4);
    expect(waits[0]).toBeGreaterThan(500);
    expect(waits[0]).toBeLessThanOrEqual(3000);
    // No Retry-After: backoff with jitter, within [half, all] of 500 ms x 2^n.
    expect(waits[1]).toBeGreaterThanOrEqual(500);
    expect(waits[1]).toBeLessThanOrEqual(1000);
    expect(waits[2]).toBeGreaterThanOrEqual(1000);
    expect(waits[2]).toBeLessThanOrEqual(2000);
  });

  it('returns a Retry-After beyond the cap at once (a 15-minute lock-out is surfaced, not waited out)', async () => {
    script = [error(429, 'RATE_LIMITED', { 'retry-after': '900' }), ok({ id: 1 })];
    const res = await client().GET('/api/v1/payments/{id}', { params: { path: { id: 1 } } });
    expect(res.response.status).toBe(429);
    expect(res.response.headers.get('retry-after')).toBe('900');
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('does not retry a 429 on a call that is not safe to repeat (a login)', async () => {
    script = [error(429, 'RATE_LIMITED', { 'retry-after': '1' })];
    const res = await client().POST('/api/v1/auth/login', {
      body: { email: 'a@example.com', password: 'x'.repeat(12) },
    });
    expect(res.response.status).toBe(429);
    expect(seen).toHaveLength(1);
  });

  it('times an attempt out and retries a GET; a create without a key times out once', async () => {
    script = ['hang', ok({ id: 6 })];
    const fast = client().withOptions({ timeoutMs: 150 });
    expect(
      await unwrap(fast.GET('/api/v1/payments/{id}', { params: { path: { id: 6 } } })),
    ).toEqual({ id: 6 });
    expect(seen).toHaveLength(2);
    script = ['hang', ok({ id: 7 })];
    const failure = await fast
      .POST('/api/v1/admin/apps', { body: { name: 'x' } })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(JomaTimeoutError);
    expect(seen).toHaveLength(3);
  });

  it('an abort ends the call at once and is never retried', async () => {
    script = ['hang', ok({ id: 8 })];
    const controller = new AbortController();
    const started = Date.now();
    const call = client().GET('/api/v1/payments/{id}', {
      params: { path: { id: 8 } },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(2000);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toHaveLength(1);
  });

  it('an abort works after the garbage collector ran (nothing but the caller holds the signal)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    script = ['hang'];
    const controller = new AbortController();
    const call = client().GET('/api/v1/payments/{id}', {
      params: { path: { id: 9 } },
      signal: controller.signal,
    });
    const settled = call.then(
      () => 'resolved',
      (e: { name?: string }) => e.name,
    );
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 20));
      gc();
    }
    const started = Date.now();
    controller.abort();
    expect(await settled).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('AbortSignal.timeout bounds one call (a per-call deadline)', async () => {
    script = ['hang'];
    const failure = await client()
      .GET('/api/v1/payments/{id}', {
        params: { path: { id: 10 } },
        signal: AbortSignal.timeout(100),
      })
      .catch((e: { name?: string }) => e.name);
    expect(failure).toBe('TimeoutError');
    expect(seen).toHaveLength(1);
  });

  it('checks bodies and headers at compile time: a misspelled member does not compile', () => {
    const typed = () => {
      const c = client();
      // @ts-expect-error customerRefrence is not a member of the create-invoice body
      void c.POST('/api/v1/invoices', { body: { customerRefrence: 'c', lineItems: [] } });
      // @ts-expect-error Idempotency-Kye is not a header the API reads
      void c.GET('/api/v1/invoices', { headers: { 'Idempotency-Kye': 'x' } });
      // @ts-expect-error timeout is not a call option (withOptions({ timeoutMs }) is)
      void c.GET('/api/v1/invoices', { timeout: 5 });
    };
    expect(typeof typed).toBe('function');
  });

  it('parses both Retry-After forms', () => {
    const now = Date.parse('2026-11-29T10:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Sun, 29 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Sun, 29 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });
});
