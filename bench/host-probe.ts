/**
 * A witness beside the load-shedding phases, in a process of its own that
 * no request goes through: every 5 ms it notes how late its timer fired
 * (how long an idle process on this host waits for a core) and, on its own
 * connection, how long PostgreSQL takes to answer `SELECT 1` (the database
 * and the loopback, with no server of ours in between) and to commit a
 * one-row UPDATE of a table of its own (flushed to the WAL as every write's
 * commit is; the scratch database goes with the run). If an accepted
 * request's stall shows here too, the host or the database stalled; if it
 * does not, the wait was in the server's own path. Its cost: ~200 timer
 * wake-ups, ~200 trivial queries and ~200 one-row commits a second, a few
 * percent of a core.
 *
 *   const probe = await startHostProbe(url);
 *   await probe.read();            // reset
 *   ... a phase ...
 *   const seen = await probe.read(); // { timer, database, commit } since the reset
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { askChild, compiledBench, Lateness, stopChild } from './server-process';
import { percentile, round } from './stats';

export interface ProbeReading {
  /** How late a 5 ms timer fired in an idle process. */
  timer: Lateness;
  /** `SELECT 1`'s round trip on a connection of its own. */
  database: Lateness;
  /** A one-row UPDATE committed on its own, flushed to the WAL. */
  commit: Lateness;
}

export interface HostProbe {
  /** What the probe saw since the last call, and starts counting again. */
  read(): Promise<ProbeReading>;
  close(): Promise<void>;
}

const EVERY_MS = 5;

export function startHostProbe(databaseUrl: string): Promise<HostProbe> {
  const script = __filename.endsWith('.js') ? __filename : compiledBench('host-probe');
  const child = fork(script, [], {
    env: { ...process.env, BENCH_PROBE_DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((ok, fail) => {
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`host probe exited (${code}) before starting`)));
    child.once('message', () => {
      child.removeAllListeners('exit');
      ok({
        read: () => askChild(child, 'read', (reading: ProbeReading) => reading),
        close: () => stopChild(child),
      });
    });
  });
}

function lateness(xs: number[]): Lateness {
  if (!xs.length) return { p99Ms: 0, maxMs: 0 };
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (p: number) => round(percentile(sorted, p));
  return { p99Ms: at(99), maxMs: at(100) };
}

async function probe(): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: process.env.BENCH_PROBE_DATABASE_URL });
  await client.connect();
  await client.query(
    'CREATE TABLE IF NOT EXISTS bench_host_probe (id int PRIMARY KEY, at timestamptz NOT NULL)',
  );
  await client.query(
    'INSERT INTO bench_host_probe VALUES (1, clock_timestamp()) ON CONFLICT (id) DO NOTHING',
  );
  let timer: number[] = [];
  let database: number[] = [];
  let commit: number[] = [];
  let running = true;
  const timers = (async () => {
    while (running) {
      const from = performance.now();
      await sleep(EVERY_MS);
      timer.push(performance.now() - from - EVERY_MS);
    }
  })();
  const queries = (async () => {
    while (running) {
      const from = performance.now();
      await client.query('SELECT 1');
      const committing = performance.now();
      database.push(committing - from);
      await client.query('UPDATE bench_host_probe SET at = clock_timestamp() WHERE id = 1');
      commit.push(performance.now() - committing);
      await sleep(EVERY_MS);
    }
  })();
  process.on('message', () => {
    process.send!({
      timer: lateness(timer),
      database: lateness(database),
      commit: lateness(commit),
    });
    timer = [];
    database = [];
    commit = [];
  });
  process.once('SIGTERM', () => {
    running = false;
    void Promise.all([timers, queries])
      .then(() => client.end())
      .then(() => process.exit(0));
  });
  process.send!('ready');
}

if (require.main === module) {
  probe().catch((err: Error) => {
    process.stderr.write(`host probe failed: ${err.stack}\n`);
    process.exit(1);
  });
}
