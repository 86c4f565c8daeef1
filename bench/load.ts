import { Worker } from 'node:worker_threads';

/**
 * An HTTP load generator in a worker thread (so it never shares the event
 * loop of the bench's own code). Two shapes:
 * - closed loop (no `ratePerSecond`): `concurrency` keep-alive connections
 *   each send their next request as soon as the last answered, for
 *   `requests` requests in all (what wrk does);
 * - open loop (`ratePerSecond`): requests start at that fixed rate whether or
 *   not earlier ones answered (up to `concurrency` connections; more wait in
 *   the agent's queue), so an overloaded server cannot slow the arrivals.
 * Paths, bodies and header values are templates: `{i}` is the request's
 * index, `{i%N}` its index mod N, `{1+i%N}` one more.
 */
export interface LoadSpec {
  port: number;
  requests: number;
  concurrency: number;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  expectStatus: number;
  ratePerSecond?: number;
  /** A request not answered within this counts as timed out (default 10 s). */
  timeoutMs?: number;
  /** Open loop: also report latency by status of the requests started after this many ms. */
  steadyAfterMs?: number;
  /** Closed loop: stop starting requests after this many seconds (then `requests` is only a cap). */
  seconds?: number;
}

export interface Latency {
  count: number;
  p50Ms: number;
  p99Ms: number;
}

export interface LoadResult {
  /** Requests made (closed loop with `seconds`: those started in time). */
  requests: number;
  /** How long the run took, first request to last answer. */
  seconds: number;
  /** Answers other than `expectStatus` (429s included), and timeouts. */
  errors: number;
  timeouts: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Latency by status code (open loop: to see accepted vs 429 separately). */
  byStatus: Record<string, Latency>;
  /** The largest Retry-After seen on a 429, in seconds. */
  maxRetryAfterS?: number;
  /** byStatus of the requests started after `steadyAfterMs`. */
  steadyByStatus?: Record<string, Latency>;
}

const WORKER = `
const { parentPort, workerData: s } = require('node:worker_threads');
const { Agent, request } = require('node:http');
const { performance } = require('node:perf_hooks');
const fill = (t, i) => t.replace(/\\{(1\\+)?i(%(\\d+))?\\}/g, (_, one, __, n) => String((n ? i % Number(n) : i) + (one ? 1 : 0)));
const agent = new Agent({ keepAlive: true, maxSockets: s.concurrency });
const lat = [], byStatus = {}, steady = {};
let errors = 0, timeouts = 0, maxRetryAfterS, tStart;
function record(status, ms, startedAt) {
  lat.push(ms);
  (byStatus[status] ??= []).push(ms);
  if (s.steadyAfterMs !== undefined && startedAt - tStart >= s.steadyAfterMs) (steady[status] ??= []).push(ms);
  if (status !== s.expectStatus) errors++;
}
function send(i) {
  return new Promise((ok) => {
    const body = s.body === undefined ? undefined : Buffer.from(fill(s.body, i));
    const headers = Object.fromEntries(Object.entries(s.headers ?? {}).map(([k, v]) => [k, fill(v, i)]));
    if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': body.length });
    const t0 = performance.now();
    let done = false;
    const finish = (status) => { if (done) return; done = true; record(status, performance.now() - t0, t0); ok(); };
    const req = request({ host: '127.0.0.1', port: s.port, method: s.method, path: fill(s.path, i), agent, headers, timeout: s.timeoutMs ?? 10000 },
      (res) => {
        if (res.statusCode === 429) maxRetryAfterS = Math.max(maxRetryAfterS ?? 0, Number(res.headers['retry-after'] ?? 0));
        res.resume();
        res.on('end', () => finish(res.statusCode));
      });
    req.on('timeout', () => { timeouts++; req.destroy(); finish('timeout'); });
    req.on('error', () => finish('error'));
    req.end(body);
  });
}
const pct = (xs, p) => xs.length ? xs[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))] : NaN;
const r = (n) => Math.round(n * 100) / 100;
(async () => {
  const t0 = performance.now();
  tStart = t0;
  if (s.ratePerSecond) {
    const pending = [];
    for (let i = 0; i < s.requests; i++) {
      const due = t0 + (i * 1000) / s.ratePerSecond;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((w) => setTimeout(w, wait));
      pending.push(send(i));
    }
    await Promise.all(pending);
  } else {
    let next = 0;
    const until = s.seconds === undefined ? Infinity : t0 + s.seconds * 1000;
    await Promise.all(Array.from({ length: s.concurrency }, async () => {
      for (let i = next++; i < s.requests && performance.now() < until; i = next++) await send(i);
    }));
  }
  const seconds = (performance.now() - t0) / 1000;
  const made = lat.length;
  agent.destroy();
  lat.sort((a, b) => a - b);
  const summarise = (groups) => {
    const out = {};
    for (const [k, xs] of Object.entries(groups)) { xs.sort((a, b) => a - b); out[k] = { count: xs.length, p50Ms: r(pct(xs, 50)), p99Ms: r(pct(xs, 99)) }; }
    return out;
  };
  parentPort.postMessage({ requests: made, seconds: r(seconds), errors, timeouts, requestsPerSecond: r(made / seconds), p50Ms: r(pct(lat, 50)), p99Ms: r(pct(lat, 99)), byStatus: summarise(byStatus), maxRetryAfterS,
    steadyByStatus: s.steadyAfterMs === undefined ? undefined : summarise(steady) });
})();
`;

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((ok, fail) => {
    const w = new Worker(WORKER, { eval: true, workerData: spec });
    w.once('message', (m: LoadResult) => {
      ok(m);
      void w.terminate();
    });
    w.once('error', fail);
  });
}
