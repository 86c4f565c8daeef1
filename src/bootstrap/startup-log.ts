import { type LogFormat, prettyLine, resolveLogFormat } from '../common/http/pretty-lines';

/**
 * Start-up's own lines (one per phase), written before and beside the Nest
 * logger: JSON lines like every other log line, or a readable
 * `joma  message` line when LOG_FORMAT says `pretty` or, unset, when
 * standard output is a terminal. (Read before the environment is validated:
 * a LOG_FORMAT that is neither follows the terminal until validation stops
 * start-up naming it.)
 */
export interface StartupLog {
  info(msg: string): void;
  warn(msg: string): void;
}

export function startupLog(
  out: NodeJS.WriteStream = process.stdout,
  format: LogFormat = resolveLogFormat(process.env.LOG_FORMAT, out.isTTY),
): StartupLog {
  const write = (level: number, msg: string) => {
    if (format === 'pretty') out.write(prettyLine(level, Date.now(), msg));
    else out.write(`${JSON.stringify({ level, time: Date.now(), msg })}\n`);
  };
  return { info: (m) => write(30, m), warn: (m) => write(40, m) };
}
