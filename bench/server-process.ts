/**
 * Benchmark servers in processes of their own, as in production: the load
 * generator never shares an event loop or a heap with the server it
 * measures, and Joma logs at `info` (one JSON line per request, written to
 * the child's standard output, which goes to /dev/null).
 *
 *   startServer('joma', url, { rateLimitPerSecond: 0 })  -> Joma's full stack
 *   startServer('skeleton', url, { appId })              -> bench/skeleton.ts
 *
 * The child answers with `{ port, appId, apiKey, apiSecret }` once it listens.
 */
import 'reflect-metadata';

import { ChildProcess, execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

import { round } from './stats';

export interface ServerOptions {
  /** Joma: RATE_LIMIT_PER_SECOND (0 = off); skeleton: its one token bucket (0 = none). */
  rateLimitPerSecond?: number;
  /** Skeleton: the app whose partition it reads and writes. */
  appId?: number;
  dbPoolSize?: number;
  /** Joma: more apps to create beside the first (their TEST keys in `more`). */
  extraApps?: number;
  /** Joma: the HTTP adapter (default: HTTP_ADAPTER, else Express). */
  httpAdapter?: 'express' | 'fastify';
  /** Joma: DATABASE_DIRECT_URL (default: the database URL). */
  databaseDirectUrl?: string;
  /** Joma: DB_PREPARED_STATEMENTS (default true). */
  dbPreparedStatements?: boolean;
  /** Joma: DATABASE_READ_URL (the read replica; default none). */
  databaseReadUrl?: string;
  /** Joma: DB_READ_POOL_SIZE (default 4). */
  dbReadPoolSize?: number;
  /** Joma: the bootstrap admin (ADMIN_EMAIL, ADMIN_PASSWORD), for the admin routes. */
  admin?: { email: string; password: string };
  /** Joma: METRICS_PORT (default 0: no /metrics listener). */
  metricsPort?: number;
}

/** The adapter Joma's servers run on unless a server names its own: HTTP_ADAPTER, else Express. */
export function benchHttpAdapter(): 'express' | 'fastify' {
  return process.env.HTTP_ADAPTER === 'fastify' ? 'fastify' : 'express';
}

export interface AppKeys {
  appId: number;
  apiKey: string;
  apiSecret: string;
}

export interface RunningServer extends AppKeys {
  pid: number;
  port: number;
  /** The extra apps' TEST keys (options.extraApps). */
  more: AppKeys[];
  /**
   * How late the server's event loop ran since the last call (a 1 ms timer's
   * lateness, perf_hooks' monitorEventLoopDelay), and starts counting again:
   * call it before a phase to reset, after it to read. A stall of the whole
   * process shows here; a wait on the database does not. Beside it, the
   * garbage collector's pauses in the same window.
   */
  loopDelay(): Promise<LoopReading>;
  close(): Promise<void>;
}

/** How late something ran that should have run at once: its p99 and its worst (ms). */
export interface Lateness {
  p99Ms: number;
  maxMs: number;
}

/** The garbage collector's pauses of one kind in a window: how many, their sum and the longest (ms). */
export interface GcPauses {
  count: number;
  totalMs: number;
  maxMs: number;
}

/** A server's event-loop delay in a window, and its scavenges (minor) and other collections (major) in it. */
export interface LoopReading extends Lateness {
  gc: { minor: GcPauses; major: GcPauses };
}

/**
 * The machine's CPU time so far (all cores, in clock ticks) and how much of
 * it the hypervisor gave to other guests ("steal", /proc/stat); null off
 * Linux. Between two readings, `stealPercent` is the share of the machine
 * this VM wanted and did not get: a phase of a benchmark that ran while the
 * host was busy elsewhere shows it there.
 */
export function hostTicks(): { total: number; steal: number } | null {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const ticks = fields.slice(0, 8).map(Number); // user nice system idle iowait irq softirq steal
    return { total: ticks.reduce((a, b) => a + b, 0), steal: ticks[7] };
  } catch {
    return null;
  }
}

export function stealPercent(
  before: ReturnType<typeof hostTicks>,
  after: ReturnType<typeof hostTicks>,
): number | null {
  if (!before || !after || after.total <= before.total) return null;
  return Math.round((1000 * (after.steal - before.steal)) / (after.total - before.total)) / 10;
}

/**
 * CPU time (user + system, ms) a server process has used so far, from
 * /proc (Linux); null elsewhere. Per request, it is the figure a shared
 * machine disturbs least: throughput also moves with what PostgreSQL and
 * the load generator get of the same cores.
 */
export function cpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms
  } catch {
    return null;
  }
}

/**
 * A bench script compiled to JavaScript (the whole tree, once per bench
 * process): the service runs plain JavaScript as `npm start` does, never
 * under ts-node, whose TypeScript compiler would sit in its heap (tens of MB
 * that every full garbage collection walks), compile modules while it is
 * measured, and load node:domain, which taxes every EventEmitter.
 */
let compiledRoot: string | undefined;
export function compiledBench(script: string): string {
  const root = join(__dirname, '..');
  if (!compiledRoot) {
    execFileSync(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-p', join(__dirname, 'tsconfig.bench.json')],
      { cwd: root, stdio: 'inherit' },
    );
    compiledRoot = join(root, 'dist', 'bench', 'bench');
  }
  return join(compiledRoot, `${script}.js`);
}

export function startServer(
  kind: 'joma' | 'skeleton',
  databaseUrl: string,
  options: ServerOptions = {},
): Promise<RunningServer> {
  const script = __filename.endsWith('.js') ? __filename : compiledBench('server-process');
  const child = fork(script, [kind], {
    execArgv: [
      // BENCH_CPU_PROF=dir: a V8 CPU profile of each server, written when it stops.
      ...(process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
        : []),
      // BENCH_SERVER_NODE_ARGS: more Node flags for the servers (e.g. --trace-gc).
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
    env: { ...process.env, BENCH_SERVER: JSON.stringify({ databaseUrl, ...options }) },
    // BENCH_SERVER_LOG=dir: each server's standard output (Joma's request log) in dir/<kind>-<pid>.log.
    stdio: ['ignore', process.env.BENCH_SERVER_LOG ? 'pipe' : 'ignore', 'inherit', 'ipc'],
  });
  if (process.env.BENCH_SERVER_LOG && child.stdout) {
    child.stdout.pipe(
      createWriteStream(join(process.env.BENCH_SERVER_LOG, `${kind}-${child.pid}.log`)),
    );
  }
  return new Promise((ok, fail) => {
    child.once('error', fail);
    child.once('exit', (code) =>
      fail(new Error(`${kind} server exited (${code}) before listening`)),
    );
    child.once('message', (m: Omit<RunningServer, 'close' | 'pid'>) => {
      child.removeAllListeners('exit');
      ok({
        ...m,
        pid: child.pid!,
        loopDelay: () =>
          askChild(child, 'loop-delay', (reply: { loopDelay?: LoopReading }) => reply.loopDelay),
        close: () => stopChild(child),
      });
    });
  });
}

/**
 * Sends a bench child process a question over IPC and resolves with the
 * first reply `pick` finds an answer in (other messages are left alone);
 * fails if the child is gone or exits before answering, so a bench never
 * waits for ever on a process that died.
 */
export function askChild<R, T>(
  child: ChildProcess,
  question: string,
  pick: (reply: R) => T | undefined,
): Promise<T> {
  return new Promise<T>((done, fail) => {
    const answer = (reply: R) => {
      const found = pick(reply);
      if (found === undefined) return;
      settle();
      done(found);
    };
    const gone = (code: number | null) => {
      settle();
      fail(new Error(`bench process ${child.pid} exited (${code}) before answering ${question}`));
    };
    const settle = () => {
      child.off('message', answer);
      child.off('exit', gone);
    };
    if (exited(child)) return gone(child.exitCode);
    child.on('message', answer);
    child.once('exit', gone);
    child.send(question);
  });
}

/** Stops a bench child process (SIGTERM: it closes what it holds) and waits for it to exit. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (exited(child)) return Promise.resolve();
  return new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** No GC pauses yet, of either kind. */
const noPauses = (): LoopReading['gc'] => ({
  minor: { count: 0, totalMs: 0, maxMs: 0 },
  major: { count: 0, totalMs: 0, maxMs: 0 },
});

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

async function serveJoma(options: ServerOptions & { databaseUrl: string }) {
  const { createHttpApp } = await import('../src/bootstrap/http-adapter');
  const { AppModule } = await import('../src/app.module');
  const { AppsService } = await import('../src/apps');
  const { configureApp } = await import('../src/bootstrap/configure-app');
  const { AppConfig } = await import('../src/config/app-config');
  const config = new AppConfig({
    port: 0,
    databaseUrl: options.databaseUrl,
    databaseDirectUrl: options.databaseDirectUrl,
    dbPreparedStatements: options.dbPreparedStatements,
    databaseReadUrl: options.databaseReadUrl,
    dbReadPoolSize: options.dbReadPoolSize,
    adminEmail: options.admin?.email,
    adminPassword: options.admin?.password,
    metricsPort: options.metricsPort,
    jwtSecret: randomBytes(32).toString('hex'),
    encryptionKeyHex: randomBytes(32).toString('hex'),
    workersEnabled: false,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'info',
    dbPoolSize: options.dbPoolSize,
    rateLimitPerSecond: options.rateLimitPerSecond ?? 0,
    httpAdapter: options.httpAdapter ?? benchHttpAdapter(),
  });
  const nest = await createHttpApp(AppModule.forRoot(config), config, { logger: false });
  configureApp(nest);
  await nest.listen(0, '127.0.0.1');
  const created = [];
  for (let i = 0; i <= (options.extraApps ?? 0); i++) {
    const { app, credentials } = await nest.get(AppsService).create(`bench-${i}`);
    const test = credentials.find((c) => c.mode === 'TEST')!;
    created.push({ appId: app.id, apiKey: test.apiKey, apiSecret: test.apiSecret });
  }
  process.once('SIGTERM', () => void nest.close().then(() => process.exit(0)));
  return {
    port: (nest.getHttpServer().address() as { port: number }).port,
    ...created[0],
    more: created.slice(1),
  };
}

async function serveSkeleton(options: ServerOptions & { databaseUrl: string }) {
  const { startSkeleton } = await import('./skeleton');
  const skeleton = await startSkeleton(
    options.databaseUrl,
    options.appId!,
    options.dbPoolSize ?? 10,
    options.rateLimitPerSecond ?? 0,
  );
  process.once('SIGTERM', () => void skeleton.close().then(() => process.exit(0)));
  return { port: skeleton.port, appId: options.appId!, apiKey: '', apiSecret: '', more: [] };
}

/**
 * BENCH_HEAP_PROF=dir: V8's sampling heap profiler from the moment the
 * server listens, counting objects the garbage collector has freed too, so
 * the profile says what each function allocates (bytes per request: its
 * totals over the requests served), written as dir/heap-<pid>.heapprofile
 * when the server stops. Allocation is steadier to compare than time on a
 * shared machine.
 */
async function sampleAllocations(dir: string): Promise<void> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    // BENCH_HEAP_PROF_SURVIVORS=1: leave out what a scavenge frees, so the profile
    // shows what lives long enough to be copied and promoted (the scavenges' cost).
    includeObjectsCollectedByMinorGC: !process.env.BENCH_HEAP_PROF_SURVIVORS,
  } as never);
  process.prependOnceListener('SIGTERM', () => {
    void session.post('HeapProfiler.stopSampling').then(({ profile }) => {
      writeFileSync(join(dir, `heap-${process.pid}.heapprofile`), JSON.stringify(profile));
      process.exit(0);
    });
  });
}

if (require.main === module) {
  const options = JSON.parse(process.env.BENCH_SERVER ?? '{}') as ServerOptions & {
    databaseUrl: string;
  };
  const kind = process.argv[2];
  (kind === 'joma' ? serveJoma(options) : serveSkeleton(options)).then(
    async (ready) => {
      if (process.env.BENCH_HEAP_PROF) await sampleAllocations(process.env.BENCH_HEAP_PROF);
      // Started by the first question (the shedding phases), so the 1 ms
      // timer and the GC observer never run during the throughput rounds.
      let delay: ReturnType<typeof monitorEventLoopDelay> | undefined;
      let gc = noPauses();
      process.on('message', (m) => {
        if (m !== 'loop-delay') return;
        if (!delay) {
          (delay = monitorEventLoopDelay({ resolution: 1 })).enable();
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) {
              // A 'gc' entry's detail (NodeGCPerformanceDetail) names its kind.
              const kind = (e as { detail?: { kind?: number } }).detail?.kind;
              const p = kind === constants.NODE_PERFORMANCE_GC_MINOR ? gc.minor : gc.major;
              p.count++;
              p.totalMs += e.duration;
              p.maxMs = Math.max(p.maxMs, e.duration);
            }
          }).observe({ entryTypes: ['gc'] });
        }
        const ms = (ns: number) => round(ns / 1e6);
        const rounded = (p: GcPauses) => ({
          count: p.count,
          totalMs: round(p.totalMs),
          maxMs: round(p.maxMs),
        });
        const loopDelay: LoopReading = {
          p99Ms: ms(delay.percentile(99)),
          maxMs: ms(delay.max),
          gc: { minor: rounded(gc.minor), major: rounded(gc.major) },
        };
        delay.reset();
        gc = noPauses();
        process.send!({ loopDelay });
      });
      process.send!(ready);
    },
    (err: Error) => {
      process.stderr.write(`${kind} server failed: ${err.stack}\n`);
      process.exit(1);
    },
  );
}
