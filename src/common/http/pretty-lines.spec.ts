import pino from 'pino';

import { prettyLine, prettyLines, prettyRecord, resolveLogFormat } from './pretty-lines';

describe('LOG_FORMAT', () => {
  it('pretty or json as set; unset (or anything else), pretty only on a terminal', () => {
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
    expect(resolveLogFormat(undefined, true)).toBe('pretty');
    expect(resolveLogFormat(undefined, false)).toBe('json');
    expect(resolveLogFormat(undefined, undefined)).toBe('json');
  });
});

describe('readable lines', () => {
  const at = Date.parse('2026-12-02T06:19:35.123Z');

  it('UTC time, the level unless info, joma, the text', () => {
    expect(prettyLine(30, at, 'Migrations: up to date')).toBe(
      '06:19:35 joma  Migrations: up to date\n',
    );
    expect(prettyLine(40, at, 'careful')).toBe('06:19:35 WARN joma  careful\n');
    expect(prettyLine(50, at, 'broken')).toBe('06:19:35 ERROR joma  broken\n');
    expect(prettyLine(20, at, 'detail')).toBe('06:19:35 DEBUG joma  detail\n');
  });

  it('a request line: method, masked path, status and duration; an app line: its context and other fields', () => {
    expect(
      prettyRecord(
        JSON.stringify({
          level: 40,
          time: at,
          pid: 1,
          hostname: 'vm',
          req: { id: 'r1', method: 'GET', path: '/pay/***' },
          res: { statusCode: 404 },
          responseTime: 3,
          msg: 'request completed',
        }),
      ),
    ).toBe('06:19:35 WARN joma  request completed GET /pay/*** -> 404 (3 ms)\n');
    expect(
      prettyRecord(
        JSON.stringify({ level: 30, time: at, context: 'WebhookWorker', msg: 'started', lane: 2 }),
      ),
    ).toBe('06:19:35 joma  [WebhookWorker] started {"lane":2}\n');
    expect(prettyRecord('not json')).toBe('not json\n');
  });

  it('is a pino destination: each line pino writes comes out readable', () => {
    const out: string[] = [];
    const logger = pino({ level: 'info' }, prettyLines({ write: (s: string) => out.push(s) }));
    logger.info({ context: 'Boot' }, 'ready');
    logger.debug('not at info');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d joma {2}\[Boot\] ready\n$/);
  });
});
