/** Where batches go: a SonicBoom (pino.destination) in production. */
export interface LineSink {
  write(data: string): unknown;
  flushSync(): void;
}

/** Every LineBatches made, flushed at the end of the process by one listener each (not one per logger). */
const open = new Set<LineBatches>();

/** Pending lines to their sinks, which pino then flushes and closes (`beforeExit`). */
function handOverBeforeExit(): void {
  for (const batches of open) safely(() => batches.flush());
}

/**
 * Every pending line written now: at `exit` (nothing runs after it), and when
 * the app has shut down on SIGTERM/SIGINT, just before Nest re-raises the
 * signal, whose default action ends the process without an `exit` event.
 */
export function writePendingLines(): void {
  for (const batches of open) safely(() => batches.flushSync());
}

function safely(write: () => void): void {
  try {
    write();
  } catch {
    // A closed or broken output: nothing more can be written to it.
  }
}

/**
 * Log lines in batches: kept in an array until they reach `minBytes` (or
 * `flushMs` has passed), then joined and handed to the sink as one string,
 * one write system call per batch.
 *
 * SonicBoom batches by itself (`minLength`), but by appending each line to
 * the string it is building and measuring that string's byte length, which
 * flattens the whole string again for every line: about 3 KB of garbage and
 * a few microseconds per line at a 4 KB batch, on every request (a third of
 * a refused call's allocation; bench/README.md, eighth pass). Joining an
 * array allocates each batch once.
 *
 * Nothing is lost at the end: when the process runs out of work
 * (`beforeExit`) what is pending goes to the sink before pino flushes and
 * closes it, and at `exit` (process.exit, a crash) it is written
 * synchronously; pino's `fatal` flushes through `flushSync`. Only a SIGKILL
 * (or a signal's default action) can lose the last `flushMs` of lines.
 */
export class LineBatches {
  private lines: string[] = [];
  private bytes = 0;

  constructor(
    private readonly sink: LineSink,
    private readonly minBytes: number,
    flushMs: number,
  ) {
    setInterval(() => safely(() => this.flush()), flushMs).unref();
    if (open.size === 0) {
      // Ahead of pino's own listeners, which flush and close the sink on `beforeExit`.
      process.prependListener('beforeExit', handOverBeforeExit);
      process.prependOnceListener('exit', writePendingLines);
    }
    open.add(this);
  }

  write(line: string): boolean {
    this.lines.push(line);
    // UTF-16 length: the byte length of ASCII lines, a lower bound otherwise; a threshold only.
    this.bytes += line.length;
    if (this.bytes >= this.minBytes) this.flush();
    return true;
  }

  /** Hands what is pending to the sink (written asynchronously). */
  flush(): void {
    if (this.lines.length === 0) return;
    const batch = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.bytes = 0;
    this.sink.write(batch);
  }

  /** Hands what is pending to the sink and writes everything now. */
  flushSync(): void {
    this.flush();
    this.sink.flushSync();
  }
}
