import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { LineBatches } from './line-batches';

describe('LineBatches', () => {
  const sink = () => {
    const written: string[] = [];
    let flushedSync = 0;
    return {
      written,
      flushedSync: () => flushedSync,
      write: (data: string) => written.push(data),
      flushSync: () => void flushedSync++,
    };
  };

  afterEach(() => jest.useRealTimers());

  it('hands lines over as one string once they reach the batch size, not one by one', () => {
    const out = sink();
    const batches = new LineBatches(out, 30, 60_000);
    batches.write('{"n":1}\n');
    batches.write('{"n":2}\n');
    batches.write('{"n":3}\n');
    expect(out.written).toEqual([]);
    batches.write('{"n":4}\n'); // 32 bytes pending
    expect(out.written).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n']);
    batches.write('{"n":5}\n');
    expect(out.written).toHaveLength(1);
  });

  it('hands over what is pending every flush interval', () => {
    jest.useFakeTimers();
    const out = sink();
    const batches = new LineBatches(out, 4096, 100);
    batches.write('a\n');
    jest.advanceTimersByTime(99);
    expect(out.written).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(out.written).toEqual(['a\n']);
    jest.advanceTimersByTime(500); // nothing pending: nothing written
    expect(out.written).toEqual(['a\n']);
  });

  it('flushSync (pino calls it at fatal) hands over what is pending and writes it now', () => {
    const out = sink();
    const batches = new LineBatches(out, 4096, 60_000);
    batches.write('b\n');
    batches.flushSync();
    expect(out.written).toEqual(['b\n']);
    expect(out.flushedSync()).toBe(1);
  });

  it('loses no line when the process exits right after writing it (real stdout, real exit)', () => {
    const logging = resolve(__dirname, 'logging.ts');
    const script = `
      const { jsonLines } = require(${JSON.stringify(logging)});
      const out = jsonLines();
      for (let i = 0; i < 1000; i++) out.write(JSON.stringify({ i }) + '\\n');
      process.exit(0);`;
    const child = spawnSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-e', script],
      { encoding: 'utf8', cwd: resolve(__dirname, '..', '..', '..') },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    const lines = child.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1000);
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i),
    );
  });
});
