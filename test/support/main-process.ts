import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { testHttpAdapter } from './test-app';

/**
 * The real entry point (`src/main.ts`) as `npm start` runs it, in a child
 * process: for what only a whole process shows (its log lines, its exit,
 * surviving what would end it).
 */
const root = join(__dirname, '..', '..');

export interface Run {
  child: ChildProcess;
  out: string[];
  err: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `ownGroup`: the process leads a process group of its own, as a command in a
 * terminal does, so a test can send a signal to the whole group (what Ctrl-C
 * does: `process.kill(-pid, 'SIGINT')`).
 */
/** `node`: the Node.js binary to run it on (default: the one running the tests). */
export function startMain(
  env: Record<string, string>,
  opts: { ownGroup?: boolean; node?: string } = {},
): Run {
  // The run's transpiled copy (scripts/transpile-for-tests.mjs) when global setup made one:
  // the same code, started without transpiling it again in each process.
  const main = process.env.JOMA_TEST_MAIN_JS;
  const args = main ? [main] : ['-r', 'ts-node/register/transpile-only', 'src/main.ts'];
  const child = spawn(opts.node ?? process.execPath, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      JWT_SECRET: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      WORKERS_ENABLED: 'true',
      METRICS_PORT: '0',
      // The Jest project's adapter (e2e: Express, e2e-fastify: Fastify), so main.ts starts on each.
      HTTP_ADAPTER: testHttpAdapter(),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.ownGroup ?? false,
  });
  const out: string[] = [];
  const err: string[] = [];
  const collect = (into: string[]) => {
    let rest = '';
    return (chunk: Buffer) => {
      rest += chunk.toString();
      const lines = rest.split('\n');
      rest = lines.pop()!;
      into.push(...lines.filter(Boolean));
    };
  };
  child.stdout!.on('data', collect(out));
  child.stderr!.on('data', collect(err));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) =>
    child.once('exit', (code, signal) => ok({ code, signal })),
  );
  return { child, out, err, exited };
}

export async function until(cond: () => boolean | Promise<boolean>, ms = 80_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
