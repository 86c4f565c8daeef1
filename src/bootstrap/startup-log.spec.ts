import { startupLog } from './startup-log';

function stream(isTTY: boolean) {
  const lines: string[] = [];
  return {
    lines,
    out: { isTTY, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream,
  };
}

describe('startupLog', () => {
  it('on a terminal: one readable line per phase, warnings marked', () => {
    const s = stream(true);
    const log = startupLog(s.out);
    log.info('Migrations: up to date');
    log.warn('Node.js v20 is not supported');
    expect(s.lines[0]).toMatch(/^\d\d:\d\d:\d\d joma {2}Migrations: up to date\n$/);
    expect(s.lines[1]).toMatch(/^\d\d:\d\d:\d\d WARN joma {2}Node\.js v20 is not supported\n$/);
  });

  it('elsewhere: JSON lines with pino levels', () => {
    const s = stream(false);
    startupLog(s.out).warn('careful');
    expect(JSON.parse(s.lines[0])).toMatchObject({ level: 40, msg: 'careful' });
  });

  it('LOG_FORMAT decides over the terminal: pretty into a pipe, JSON on a terminal', () => {
    const pipe = stream(false);
    startupLog(pipe.out, 'pretty').info('Migrations: up to date');
    expect(pipe.lines[0]).toMatch(/^\d\d:\d\d:\d\d joma {2}Migrations: up to date\n$/);
    const tty = stream(true);
    startupLog(tty.out, 'json').info('Migrations: up to date');
    expect(JSON.parse(tty.lines[0])).toMatchObject({ level: 30, msg: 'Migrations: up to date' });
  });
});
