/** Where batches go: a SonicBoom (pino.destination) in production. */
export interface LineSink {
  write(data: string): unknown;
  flushSync(): void;
  /** 'drain': everything handed over has been written (SonicBoom emits it when its queue empties). */
  on(event: 'drain', listener: () => void): unknown;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

/** Every LineBatches made, flushed at the end of the process by one listener each (not one per logger). */
const open = new Set<LineBatches>();

/** Pending lines to their sinks, which pino then flushes and closes (`beforeExit`). */
function handOverBeforeExit(): void {
  for (const batches of open) safely(() => batches.flush());
}

/**
 * Every pending line handed over now and written as far as it can be
 * synchronously: at `exit` (nothing runs after it; the asynchronous write
 * SonicBoom may have started still completes, since Node finishes the
 * thread pool's queued work on the way out).
 */
export function writePendingLines(): void {
  for (const batches of open) safely(() => batches.flushSync());
}

/**
 * Every pending line written before the process ends on a signal: when the
 * app has shut down on SIGTERM/SIGINT, Nest re-raises the signal, whose
 * default action ends the process at once, without an `exit` event and
 * without finishing the thread pool's queued work, so a batch SonicBoom is
 * still writing asynchronously would be lost (and a batch handed over by
 * `writePendingLines` is written asynchronously when the sink is idle).
 * Resolves once every sink has written everything, or after `timeoutMs`: a
 * blocked output must not hold the shutdown for ever.
 */
export async function drainPendingLines(timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  await Promise.all([...open].map((batches) => batches.drained(until)));
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
 * a refused call's allocation; bench/README.md, "Log lines"). Joining an
 * array allocates each batch once.
 *
 * Nothing is lost at the end: when the process runs out of work
 * (`beforeExit`) what is pending goes to the sink before pino flushes and
 * closes it, at `exit` (process.exit, a crash) it is handed over and
 * written on the way out, and on SIGTERM/SIGINT the shutdown waits until it
 * is written (`drainPendingLines`); pino's `fatal` flushes through
 * `flushSync`. Only a SIGKILL (or a signal nothing handles) can lose the
 * last `flushMs` of lines.
 */
export class LineBatches {
  private lines: string[] = [];
  private bytes = 0;
  /** A batch handed to the sink that it has not finished writing ('drain' not yet seen). */
  private writing = false;

  constructor(
    private readonly sink: LineSink,
    private readonly minBytes: number,
    flushMs: number,
  ) {
    sink.on('drain', () => (this.writing = false));
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
    this.writing = true;
    this.sink.write(batch);
  }

  /**
   * Hands over what is pending (again, for lines logged while waiting) until
   * the sink has written everything, or until the time `until` (ms since the
   * epoch).
   */
  async drained(until: number): Promise<void> {
    for (;;) {
      safely(() => this.flush());
      const left = until - Date.now();
      if (!this.writing || left <= 0) return;
      await new Promise<void>((done) => {
        const finish = () => {
          clearTimeout(timer);
          this.sink.off('drain', finish);
          done();
        };
        const timer = setTimeout(finish, left);
        this.sink.once('drain', finish);
      });
    }
  }

  /**
   * Hands what is pending to the sink and has it write what it queued now.
   * A batch an idle SonicBoom takes is still written asynchronously, which
   * an `exit` completes but a signal's default action does not (`drained`).
   */
  flushSync(): void {
    this.flush();
    this.sink.flushSync();
  }
}
