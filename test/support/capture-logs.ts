import { Logger } from '@nestjs/common';

/**
 * Everything the service writes from now on (request logs on stdout) and
 * every Nest log call (even when output is off), to grep for secrets.
 * Undo with jest.restoreAllMocks().
 */
export function captureLogs(): string[] {
  const logged: string[] = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    logged.push(String(chunk));
    return true;
  });
  for (const level of ['log', 'warn', 'error', 'debug', 'verbose'] as const) {
    jest.spyOn(Logger.prototype, level).mockImplementation(function (this: Logger, ...args) {
      logged.push(args.map(String).join(' '));
    });
  }
  return logged;
}
