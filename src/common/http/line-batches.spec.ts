import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';

import { LineBatches } from './line-batches';

describe('LineBatches', () => {
  const sink = () => {
    const written: string[] = [];
    let flushedSync = 0;
    return Object.assign(new EventEmitter(), {
      written,
      flushedSync: () => flushedSync,
      write: (data: string) => written.push(data),
      flushSync: () => void flushedSync++,
    });
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

  /** A real process writing 1,000 lines through `jsonLines()` to its stdout, then `ending`. */
  const lastLines = (ending: string) => {
    const logging = resolve(__dirname, 'logging.ts');
    const script = `
      const { jsonLines } = require(${JSON.stringify(logging)});
      const out = jsonLines();
      for (let i = 0; i < 1000; i++) out.write(JSON.stringify({ i }) + '\\n');
      ${ending}`;
    const child = spawnSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-e', script],
      { encoding: 'utf8', cwd: resolve(__dirname, '..', '..', '..') },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    // Sorted: a batch SonicBoom is still writing asynchronously when the process exits
    // can land after the ones written at exit; every line must be there.
    return child.stdout
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { i: number }).i)
      .sort((a, b) => a - b);
  };
  const all = Array.from({ length: 1000 }, (_, i) => i);

  it('loses no line when the process exits right after writing it (process.exit)', () => {
    expect(lastLines('process.exit(0);')).toEqual(all);
  });

  it('loses no line when the process ends by itself (nothing left to do)', () => {
    expect(lastLines('')).toEqual(all);
  });

  it('drained waits for the sink to write what it was handed, and hands over lines logged meanwhile', async () => {
    const out = sink();
    const batches = new LineBatches(out, 4096, 60_000);
    batches.write('c\n');
    let done = false;
    const drained = batches.drained(Date.now() + 10_000).then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(out.written).toEqual(['c\n']);
    expect(done).toBe(false); // the sink has not said it wrote it
    batches.write('d\n');
    out.emit('drain');
    await new Promise((r) => setImmediate(r));
    expect(out.written).toEqual(['c\n', 'd\n']);
    expect(done).toBe(false);
    out.emit('drain');
    await drained;
    expect(done).toBe(true);
  });

  it('drained gives up at its deadline when the sink never drains (a blocked output)', async () => {
    const out = sink();
    const batches = new LineBatches(out, 4096, 60_000);
    batches.write('e\n');
    const started = Date.now();
    await batches.drained(started + 50);
    expect(out.written).toEqual(['e\n']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('loses no line when SIGTERM ends the process after the shutdown drained the lines, even with the write still queued', () => {
    // One thread in the pool, kept busy: SonicBoom's asynchronous writes wait behind it, so
    // a signal's default action right after handing them over would drop them.
    const lineBatches = resolve(__dirname, 'line-batches.ts');
    const logging = resolve(__dirname, 'logging.ts');
    const script = `
      const { jsonLines } = require(${JSON.stringify(logging)});
      const { drainPendingLines } = require(${JSON.stringify(lineBatches)});
      const out = jsonLines();
      require('node:crypto').pbkdf2('x', 'y', 200000, 64, 'sha512', () => {});
      for (let i = 0; i < 1000; i++) out.write(JSON.stringify({ i }) + '\\n');
      drainPendingLines(20000).then(() => process.kill(process.pid, 'SIGTERM'));`;
    const child = spawnSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-e', script],
      {
        encoding: 'utf8',
        cwd: resolve(__dirname, '..', '..', '..'),
        env: { ...process.env, UV_THREADPOOL_SIZE: '1' },
      },
    );
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGTERM');
    const seen = child.stdout
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { i: number }).i);
    expect(seen).toEqual(all); // every line, in order
  });
});
