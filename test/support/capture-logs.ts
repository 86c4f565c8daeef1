import fs from 'node:fs';

import { Logger } from '@nestjs/common';

/**
 * Everything the service writes from now on to standard output and every
 * Nest log call (even when output is off), to grep for secrets; nothing of
 * it reaches the test run's output. The request log is written by SonicBoom
 * straight to file descriptor 1 (`fs.write`, `fs.writeSync`), not through
 * `process.stdout.write`, so both paths are captured. Undo with
 * jest.restoreAllMocks().
 */
export function captureLogs(): string[] {
  const logged: string[] = [];
  const keep = (data: unknown) => {
    logged.push(Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
    return Buffer.byteLength(data as string | Buffer);
  };
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    keep(chunk);
    return true;
  });
  const { write, writeSync } = fs;
  jest.spyOn(fs, 'write').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
    if (fd !== 1) return (write as (...a: unknown[]) => void)(fd, data, ...rest);
    const done = rest[rest.length - 1] as (err: null, written: number) => void;
    const written = keep(data);
    process.nextTick(done, null, written);
  }) as typeof fs.write);
  jest
    .spyOn(fs, 'writeSync')
    .mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) =>
      fd === 1
        ? keep(data)
        : (writeSync as (...a: unknown[]) => number)(fd, data, ...rest)) as typeof fs.writeSync);
  for (const level of ['log', 'warn', 'error', 'debug', 'verbose'] as const) {
    jest.spyOn(Logger.prototype, level).mockImplementation(function (this: Logger, ...args) {
      logged.push(args.map(String).join(' '));
    });
  }
  return logged;
}
