/**
 * Readable log lines for a person at a terminal (LOG_FORMAT, default: when
 * standard output is a terminal), instead of pino's JSON lines, which stay
 * what production, tests and log collectors get. One formatter for every
 * line, start-up's own and the app's, and no dependency (a dev dependency
 * such as pino-pretty is absent from a production install, the Docker image
 * among them, where LOG_FORMAT=pretty must work too):
 *
 *   06:19:35 joma  Listening on 0.0.0.0:3000: http://localhost:3000
 *   06:19:41 WARN joma  request completed GET /api/v1/payments -> 401 (3 ms)
 */
export type LogFormat = 'json' | 'pretty';

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/** LOG_FORMAT as set (`json` or `pretty`); anything else (unset) follows the terminal. */
export function resolveLogFormat(
  setting: string | undefined,
  isTTY: boolean | undefined,
): LogFormat {
  if (setting === 'json' || setting === 'pretty') return setting;
  return isTTY ? 'pretty' : 'json';
}

const LABELS: Record<number, string> = {
  10: 'TRACE ',
  20: 'DEBUG ',
  40: 'WARN ',
  50: 'ERROR ',
  60: 'FATAL ',
};

/** One readable line: UTC time, the level unless info, `joma`, the text. */
export function prettyLine(level: number, time: number, text: string): string {
  return `${new Date(time).toISOString().slice(11, 19)} ${LABELS[level] ?? ''}joma  ${text}\n`;
}

/** What a line's text is made of; the rest of its fields follow it as JSON. */
const SHOWN = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'context',
  'req',
  'res',
  'responseTime',
]);

interface PinoRecord {
  level?: number;
  time?: number;
  msg?: unknown;
  context?: unknown;
  req?: { method?: string; path?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  [field: string]: unknown;
}

/** A pino JSON line as a readable one: `[context] msg`, a request's method, path, status and time. */
export function prettyRecord(json: string): string {
  let record: PinoRecord;
  try {
    record = JSON.parse(json) as PinoRecord;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  let text = typeof record.msg === 'string' ? record.msg : '';
  if (typeof record.context === 'string') text = `[${record.context}] ${text}`;
  if (record.req?.method)
    text +=
      ` ${record.req.method} ${record.req.path ?? ''} -> ${record.res?.statusCode ?? '?'}` +
      (record.responseTime !== undefined ? ` (${record.responseTime} ms)` : '');
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => !SHOWN.has(k)));
  if (Object.keys(rest).length) text += ` ${JSON.stringify(rest)}`;
  return prettyLine(record.level ?? 30, record.time ?? Date.now(), text);
}

/**
 * A pino destination that writes each line readable. Writes go straight to
 * the output (a terminal, or a pipe with LOG_FORMAT=pretty: both written
 * synchronously on Linux), so nothing waits to be flushed at exit.
 */
export function prettyLines(out: { write(s: string): unknown } = process.stdout): {
  write(line: string): void;
} {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line) out.write(prettyRecord(line));
    },
  };
}
