/**
 * Start-up's own lines (one per phase), written before and beside the Nest
 * logger: JSON lines like every other log line, or a readable
 * `joma  message` line when standard output is a terminal.
 */
export interface StartupLog {
  info(msg: string): void;
  warn(msg: string): void;
}

export function startupLog(out: NodeJS.WriteStream = process.stdout): StartupLog {
  const write = (level: number, msg: string) => {
    if (out.isTTY) {
      const time = new Date().toISOString().slice(11, 19);
      out.write(`${time} ${level >= 40 ? 'WARN ' : ''}joma  ${msg}\n`);
    } else {
      out.write(`${JSON.stringify({ level, time: Date.now(), msg })}\n`);
    }
  };
  return { info: (m) => write(30, m), warn: (m) => write(40, m) };
}
