import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * The shedding measure's CPUs (Linux, `taskset` from util-linux, two cores
 * or more): the server under test runs on CPU 0 and the flood's other parts
 * (this process, whose worker threads generate the load, and the second
 * server that answers the control's refusals) on the other CPUs, as they
 * would if the clients were other machines; PostgreSQL is left where the
 * scheduler puts it. Unpinned, the generator's sends and the second
 * server's refusals took the server's cores and alone lifted the accepted
 * p99 past the 1.5x goal in half the trials, for the bare stack too
 * (bench/README.md, "Pinned flood"). BENCH_SHED_PIN=0 measures unpinned, as
 * every pass before the twentieth did.
 */
export const SHED_PIN = process.env.BENCH_SHED_PIN !== '0';

/** Every thread of `pid` (-a) allowed only on `cpuList` ("0", "1-3"); false if it could not be done. */
export function pinThreads(pid: number, cpuList: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The CPU lists of the pinned layout: [server under test, everything else]. */
export function pinnedLayout(): { server: string; rest: string; all: string } | null {
  const n = cpus().length;
  if (n < 2) return null;
  return { server: '0', rest: n === 2 ? '1' : `1-${n - 1}`, all: `0-${n - 1}` };
}
