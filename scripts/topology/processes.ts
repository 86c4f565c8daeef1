import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** One process the drill started, in a process group of its own. */
export interface Started {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
}

/** The unprivileged account PostgreSQL, Patroni and PgBouncer run as (they refuse root). */
export const SERVICE_USER = 'postgres';

/**
 * Every process the drill starts, each the leader of its own process group
 * (`detached`), so that stopping it stops what it started too (Patroni's
 * PostgreSQL, npm's node). `stopAll` runs on success, failure and Ctrl-C,
 * and signals only the groups it started, never anything by name.
 */
export class Supervisor {
  private readonly started: Started[] = [];

  constructor(private readonly logDir: string) {}

  /** Starts `cmd` with its output in `<logDir>/<name>.log`; as SERVICE_USER when `asService` and the drill is root. */
  start(
    name: string,
    cmd: string,
    args: string[],
    opts: { env?: NodeJS.ProcessEnv; cwd?: string; asService?: boolean } = {},
  ): Started {
    const log = openSync(join(this.logDir, `${name}.log`), 'a');
    const [file, argv] =
      opts.asService && process.getuid?.() === 0
        ? [
            'setpriv',
            [`--reuid=${SERVICE_USER}`, `--regid=${SERVICE_USER}`, '--init-groups', cmd, ...args],
          ]
        : [cmd, args];
    const child = spawn(file, argv, {
      detached: true,
      stdio: ['ignore', log, log],
      env: opts.env ?? process.env,
      cwd: opts.cwd,
    });
    closeSync(log);
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.once('error', () => undefined); // a missing binary shows as an exit; the log says why
    const started = { name, child, exited };
    this.started.push(started);
    return started;
  }

  /** SIGKILL to one started process's whole group, as a lost machine would; resolves once it is gone. */
  async kill(s: Started): Promise<void> {
    signalGroup(s.child, 'SIGKILL');
    await s.exited;
  }

  /** SIGTERM to every group still running, SIGKILL to what is left after `graceMs`. */
  async stopAll(graceMs = 5_000): Promise<void> {
    const running = this.started.filter(
      (s) => s.child.exitCode === null && s.child.signalCode === null,
    );
    for (const s of running.reverse()) signalGroup(s.child, 'SIGTERM');
    const deadline = sleep(graceMs);
    await Promise.race([Promise.all(running.map((s) => s.exited)), deadline]);
    // A group's leader may be gone while a member lingers: the whole group gets SIGKILL.
    for (const s of this.started) signalGroup(s.child, 'SIGKILL');
    await Promise.race([Promise.all(running.map((s) => s.exited)), sleep(2_000)]);
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

export const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

/**
 * Polls `check` every `everyMs` until it answers true; throws `what` after
 * `timeoutMs`. An error thrown by `check` ends the wait at once (a process
 * that exited); an unreachable address is `false` (see `answers`).
 */
export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  everyMs = 200,
): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > giveUp) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await sleep(everyMs);
  }
}

/** Whether nothing listens on 127.0.0.1:port (the drill refuses to start on a taken port). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const server = createServer();
    server.once('error', () => ok(false));
    server.listen(port, '127.0.0.1', () => server.close(() => ok(true)));
  });
}

/** GET `url`: its status and JSON body, or status 0 when nothing answered (within 2 s). */
export async function getJson<T = unknown>(
  url: string,
): Promise<{ status: number; body: T | undefined }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the text as it came
    }
    return { status: res.status, body: body as T };
  } catch {
    return { status: 0, body: undefined };
  }
}

/** Throws when a started process has exited (waits never outlive what they wait for). */
export function alive(s: Started): true {
  if (s.child.exitCode !== null || s.child.signalCode !== null)
    throw new Error(`${s.name} exited (see ${s.name}.log)`);
  return true;
}
