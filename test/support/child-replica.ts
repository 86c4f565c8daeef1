import { freePort } from '../../src/common/net/free-port';
import { type Run, startMain, until } from './main-process';
import type { TestApp } from './test-app';

/**
 * A second replica of an in-process test app: the real entry point
 * (`src/main.ts`) in a child process on the same database and with the
 * same secrets, so app keys work on both. `kill()` ends it with SIGKILL
 * (as the kernel's OOM killer or a lost machine would) and starts its
 * successor at once, so the next `ready()` rarely waits for a boot.
 * Its workers are off: the in-process app's sweeps, driven by the test,
 * are the ones that must repair what a killed replica left behind.
 */
export class ChildReplica {
  private next?: Promise<{ run: Run; base: string }>;
  private readonly runs: Run[] = [];

  constructor(private readonly t: TestApp) {}

  ready(): Promise<{ run: Run; base: string }> {
    this.next ??= this.boot();
    return this.next;
  }

  /** SIGKILL, wait for the exit, and start the successor in the background. */
  async kill(): Promise<void> {
    const { run } = await this.ready();
    this.next = undefined;
    run.child.kill('SIGKILL');
    await run.exited;
    this.next = this.boot();
    this.next.catch(() => undefined); // awaited (and reported) by the next ready()
  }

  async close(): Promise<void> {
    await this.next?.catch(() => undefined); // a successor still booting is stopped too
    for (const run of this.runs) if (run.child.exitCode === null) run.child.kill('SIGKILL');
    await Promise.all(this.runs.map((r) => r.exited));
  }

  private async boot(): Promise<{ run: Run; base: string }> {
    const port = await freePort();
    const run = startMain({
      DATABASE_URL: this.t.databaseUrl,
      JWT_SECRET: this.t.config.jwtSecret,
      ENCRYPTION_KEY: this.t.config.encryptionKey.toString('hex'),
      PORT: String(port),
      HOST: '127.0.0.1',
      WORKERS_ENABLED: 'false',
      RATE_LIMIT_PER_SECOND: '0',
      PUBLIC_RATE_LIMIT_PER_SECOND: '0',
      LOG_LEVEL: 'warn',
    });
    this.runs.push(run);
    const base = `http://127.0.0.1:${port}`;
    await until(async () => {
      if (run.child.exitCode !== null) throw new Error(`replica exited: ${run.err.join('\n')}`);
      return fetch(`${base}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
    });
    return { run, base };
  }
}
