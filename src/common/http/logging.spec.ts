import { EventEmitter } from 'node:events';

import { PinoLogger } from 'nestjs-pino';
import pinoHttp from 'pino-http';

import { Metrics } from '../metrics/metrics';
import { LineBatches } from './line-batches';
import {
  LOG_BATCH_BYTES,
  LOG_FLUSH_MS,
  logAtDebug,
  loggerParams,
  observeRequests,
  safePath,
} from './logging';

describe('safePath', () => {
  it.each([
    ['/pay/abcDEF123_-token', '/pay/***'],
    ['/pay/result/pay_Uh8uw1MHC9b5', '/pay/***'],
    ['/sandbox/checkout/sbx_secret?x=1', '/sandbox/checkout/***'],
    ['/api/v1/payments/12?expand=all', '/api/v1/payments/12'],
    ['/api/v1/gateways/sandbox/return?session_id=sbx_1', '/api/v1/gateways/sandbox/return'],
  ])('%s -> %s', (input, expected) => {
    expect(safePath(input)).toBe(expected);
  });
});

describe('loggerParams', () => {
  const withTty = <T>(isTTY: boolean, fn: () => T): T => {
    const before = process.stdout.isTTY;
    Object.defineProperty(process.stdout, 'isTTY', { value: isTTY, configurable: true });
    try {
      return fn();
    } finally {
      Object.defineProperty(process.stdout, 'isTTY', { value: before, configurable: true });
    }
  };

  it('writes readable lines when stdout is a terminal, JSON in batches otherwise (production, CI, log collectors)', () => {
    const tty = withTty(true, () => loggerParams('info')) as { pinoHttp: Record<string, any> };
    expect(tty.pinoHttp.transport).toBeUndefined();
    expect(tty.pinoHttp.stream).not.toBeInstanceOf(LineBatches);
    const pipe = withTty(false, () => loggerParams('info')) as { pinoHttp: Record<string, any> };
    expect(pipe.pinoHttp.stream).toBeInstanceOf(LineBatches);
  });

  it('LOG_FORMAT overrides the terminal either way', () => {
    const pretty = withTty(false, () => loggerParams('info', 'pretty')) as {
      pinoHttp: Record<string, any>;
    };
    expect(pretty.pinoHttp.stream).not.toBeInstanceOf(LineBatches);
    const json = withTty(true, () => loggerParams('info', 'json')) as {
      pinoHttp: Record<string, any>;
    };
    expect(json.pinoHttp.stream).toBeInstanceOf(LineBatches);
  });

  it('writes them in batches (4 KiB or every 100 ms), not one system call per line', () => {
    const params = withTty(false, () => loggerParams('info')) as { pinoHttp: Record<string, any> };
    const stream = params.pinoHttp.stream as LineBatches;
    expect(stream).toBeInstanceOf(LineBatches);
    expect(stream).toMatchObject({ minBytes: LOG_BATCH_BYTES });
    expect([LOG_BATCH_BYTES, LOG_FLUSH_MS]).toEqual([4096, 100]);
  });

  it('opens no batching stream (nor its flush timer) at level silent', () => {
    const params = withTty(false, () => loggerParams('silent')) as {
      pinoHttp: Record<string, any>;
    };
    expect(params.pinoHttp.stream).toBeUndefined();
    expect(params.pinoHttp.level).toBe('silent');
  });

  it('mounts no per-request middleware of nestjs-pino (requestLog writes the request line)', () => {
    expect(loggerParams('info').forRoutes).toEqual([]);
  });
});

describe('the request log line', () => {
  it('is one JSON line with the request id, method, masked path, status and duration', () => {
    const lines: string[] = [];
    const params = loggerParams('info') as { pinoHttp: Record<string, unknown> };
    const http = pinoHttp({
      ...params.pinoHttp,
      stream: { write: (line: string) => lines.push(line) },
    } as unknown as Parameters<typeof pinoHttp>[0]);
    (PinoLogger as unknown as { root: unknown }).root = http.logger;
    const res = Object.assign(new EventEmitter(), { statusCode: 404 });
    const req = {
      id: 'req-1',
      method: 'GET',
      originalUrl: '/pay/SECRET-TOKEN?lang=bn',
      route: undefined,
    };
    observeRequests(new Metrics())(req as never, res as never, () => undefined);
    res.emit('finish');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 40,
      req: { id: 'req-1', method: 'GET', path: '/pay/***' },
      res: { statusCode: 404 },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    // Exactly these fields: nothing else of the request or response reaches the line.
    expect(line.req).toEqual({ id: 'req-1', method: 'GET', path: '/pay/***' });
    expect(line.res).toEqual({ statusCode: 404 });
    expect(lines[0]).not.toContain('SECRET-TOKEN');
  });

  it('a poll that found nothing new (logAtDebug) is written at debug when it succeeds, never hiding a failure', () => {
    const lines: string[] = [];
    const params = loggerParams('debug') as { pinoHttp: Record<string, unknown> };
    const http = pinoHttp({
      ...params.pinoHttp,
      stream: { write: (line: string) => lines.push(line) },
    } as unknown as Parameters<typeof pinoHttp>[0]);
    (PinoLogger as unknown as { root: unknown }).root = http.logger;
    const levelOf = (status: number, viaFastify: boolean) => {
      const res = Object.assign(new EventEmitter(), { statusCode: status });
      const req = { id: 'poll', method: 'GET', originalUrl: '/api/v1/events?afterId=9' };
      observeRequests(new Metrics())(req as never, res as never, () => undefined);
      // The handler marks Express's request, or Fastify's, whose Node request is `raw`.
      logAtDebug(viaFastify ? { raw: req } : req);
      res.emit('finish');
      return (JSON.parse(lines[lines.length - 1]) as { level: number }).level;
    };
    expect([levelOf(200, false), levelOf(200, true), levelOf(429, false)]).toEqual([20, 20, 40]);
  });
});
