import { Worker } from 'node:worker_threads';

/**
 * An HTTP load generator in a worker thread (so it never shares the event
 * loop of the bench's own code). Two shapes:
 * - closed loop (no `ratePerSecond`): `concurrency` keep-alive connections
 *   each send their next request as soon as the last answered, for
 *   `requests` requests in all (what wrk does);
 * - open loop (`ratePerSecond`): requests start at that fixed rate whether or
 *   not earlier ones answered (up to `concurrency` connections; more wait
 *   for one), so an overloaded server cannot slow the arrivals.
 * Requests go over plain sockets as bytes and answers are parsed only as far
 * as needed, not through node:http's client: its CPU (about 300 us a request
 * on a 2-core VM, as much as the server's own for a 429) was taken from the
 * same cores as the servers under test (bench/README.md, "Load generator"); wrk,
 * with which issue #12 measured, costs a few microseconds.
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
  /** Open loop: the first request this many ms after the start (spreads several generators' sends apart). */
  phaseMs?: number;
  /** A request not answered within this counts as timed out (default 10 s). */
  timeoutMs?: number;
  /** Open loop: also report latency by status of the requests started after this many ms. */
  steadyAfterMs?: number;
  /** Also return every latency (ms) by status, of the whole run and of the steady part. */
  keepSamples?: boolean;
  /** Closed loop: stop starting requests after this many seconds (then `requests` is only a cap). */
  seconds?: number;
  /** Also return every request as [started (ms after the run began), latency (ms), status]. */
  keepTimeline?: boolean;
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
  /** With `keepSamples`: the latencies (ms, sorted) by status. */
  samples?: { all: Record<string, number[]>; steady: Record<string, number[]> };
  /** With `keepTimeline`: every request as [started ms, latency ms, status], in order of answer. */
  timeline?: [number, number, number | string][];
  /** Open loop: the most a request was sent after its scheduled time. */
  maxSendLagMs?: number;
  /** The generator thread's own CPU time per request (user + system). */
  generatorCpuUsPerRequest?: number;
}

const WORKER = `
const { parentPort, workerData: s } = require('node:worker_threads');
const net = require('node:net');
const { performance } = require('node:perf_hooks');
const fill = (t, i) => t.replace(/\\{(1\\+)?i(%(\\d+))?\\}/g, (_, one, __, n) => String((n ? i % Number(n) : i) + (one ? 1 : 0)));
const lat = [], byStatus = {}, steady = {}, timeline = [];
let errors = 0, timeouts = 0, maxRetryAfterS, tStart, maxSendLagMs = 0;
function record(status, ms, startedAt) {
  lat.push(ms);
  (byStatus[status] ??= []).push(ms);
  if (s.keepTimeline) timeline.push([Math.round((startedAt - tStart) * 100) / 100, Math.round(ms * 100) / 100, status]);
  if (s.steadyAfterMs !== undefined && startedAt - tStart >= s.steadyAfterMs) (steady[status] ??= []).push(ms);
  if (status !== s.expectStatus) errors++;
}
// Keep-alive connections, one request in flight on each (no pipelining), at
// most s.concurrency; a request finding none free waits for one. Requests
// are written as bytes and answers parsed just enough (status line,
// Content-Length or chunked end, Retry-After, Connection: close, Keep-Alive).
// As undici does, a connection idle for the server's Keep-Alive timeout is
// not reused but closed: the server may be closing it at that very moment.
const idle = [], waiting = [];
let open = 0, keepAliveMs = Infinity;
function connect() {
  const sock = net.connect(s.port, '127.0.0.1');
  sock.setNoDelay(true);
  const c = { sock, buf: null, onDone: null, dead: false };
  sock.on('data', (d) => { c.buf = c.buf ? Buffer.concat([c.buf, d]) : d; if (c.onDone) parse(c); });
  const fail = () => { if (c.dead) return; c.dead = true; const done = c.onDone; c.onDone = null; done?.('error'); };
  sock.on('error', fail);
  sock.on('close', fail);
  return c;
}
function acquire(use) {
  let c;
  while ((c = idle.pop()) && (c.dead || performance.now() - c.idleFrom >= keepAliveMs)) {
    if (!c.dead) { c.dead = true; c.sock.destroy(); }
    open--;
  }
  if (c) return use(c);
  if (open < s.concurrency) { open++; return use(connect()); }
  waiting.push(use);
}
function release(c) {
  if (c.dead) open--;
  const next = waiting.shift();
  if (!next) { if (!c.dead) { c.idleFrom = performance.now(); idle.push(c); } return; }
  if (c.dead) { open++; next(connect()); } else next(c);
}
function parse(c) {
  const head = c.buf.indexOf('\\r\\n\\r\\n');
  if (head < 0) return;
  const text = c.buf.toString('latin1', 0, head);
  const length = /\\r\\ncontent-length: *(\\d+)/i.exec(text);
  let end = head + 4;
  if (length) end += Number(length[1]);
  else if (/\\r\\ntransfer-encoding: *chunked/i.test(text)) {
    const last = c.buf.indexOf('\\r\\n0\\r\\n\\r\\n', head + 2);
    if (last < 0) return;
    end = last + 7;
  }
  if (c.buf.length < end) return;
  const status = Number(text.slice(9, 12));
  const retryAfter = status === 429 ? /\\r\\nretry-after: *(\\d+)/i.exec(text) : null;
  if (retryAfter) maxRetryAfterS = Math.max(maxRetryAfterS ?? 0, Number(retryAfter[1]));
  c.buf = c.buf.length > end ? c.buf.subarray(end) : null;
  if (/\\r\\nconnection: *close/i.test(text)) { c.dead = true; c.sock.destroy(); }
  else if (keepAliveMs === Infinity) {
    const hint = /\\r\\nkeep-alive: *timeout=(\\d+)/i.exec(text);
    if (hint) keepAliveMs = Number(hint[1]) * 1000;
  }
  const done = c.onDone;
  c.onDone = null;
  done(status);
}
const headerTemplate = Object.entries(s.headers ?? {});
const inFlight = new Set();
function send(i) {
  return new Promise((ok) => {
    const body = s.body === undefined ? '' : fill(s.body, i);
    let text = s.method + ' ' + fill(s.path, i) + ' HTTP/1.1\\r\\nhost: 127.0.0.1:' + s.port + '\\r\\n';
    for (const [k, v] of headerTemplate) text += k + ': ' + fill(v, i) + '\\r\\n';
    if (s.body !== undefined) text += 'content-type: application/json\\r\\ncontent-length: ' + Buffer.byteLength(body) + '\\r\\n';
    text += '\\r\\n' + body;
    const t0 = performance.now();
    const req = { t0, conn: null, finish: null };
    req.finish = (status) => { if (!inFlight.delete(req)) return; record(status, performance.now() - t0, t0); ok(); };
    inFlight.add(req);
    acquire((c) => {
      if (!inFlight.has(req)) return release(c);
      req.conn = c;
      c.onDone = (status) => { release(c); req.finish(status); };
      c.sock.write(text);
    });
  });
}
// Timeouts: one sweep every 100 ms rather than a timer per request.
const timeoutMs = s.timeoutMs ?? 10000;
const sweep = setInterval(() => {
  const now = performance.now();
  for (const req of inFlight) if (now - req.t0 > timeoutMs) {
    timeouts++;
    if (req.conn) { req.conn.onDone = null; req.conn.dead = true; req.conn.sock.destroy(); release(req.conn); }
    req.finish('timeout');
  }
}, 100);
const pct = (xs, p) => xs.length ? xs[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))] : NaN;
const r = (n) => Math.round(n * 100) / 100;
(async () => {
  const t0 = performance.now();
  const cpu0 = process.threadCpuUsage?.();
  tStart = t0;
  if (s.ratePerSecond) {
    const pending = [];
    for (let i = 0; i < s.requests; i++) {
      const due = t0 + (s.phaseMs ?? 0) + (i * 1000) / s.ratePerSecond;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((w) => setTimeout(w, wait));
      maxSendLagMs = Math.max(maxSendLagMs, performance.now() - due);
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
  const cpu = cpu0 && process.threadCpuUsage(cpu0);
  clearInterval(sweep);
  for (const c of idle) c.sock.destroy();
  lat.sort((a, b) => a - b);
  const summarise = (groups) => {
    const out = {};
    for (const [k, xs] of Object.entries(groups)) { xs.sort((a, b) => a - b); out[k] = { count: xs.length, p50Ms: r(pct(xs, 50)), p99Ms: r(pct(xs, 99)) }; }
    return out;
  };
  parentPort.postMessage({ requests: made, seconds: r(seconds), errors, timeouts, requestsPerSecond: r(made / seconds), p50Ms: r(pct(lat, 50)), p99Ms: r(pct(lat, 99)), byStatus: summarise(byStatus), maxRetryAfterS,
    steadyByStatus: s.steadyAfterMs === undefined ? undefined : summarise(steady),
    samples: s.keepSamples ? { all: byStatus, steady } : undefined,
    timeline: s.keepTimeline ? timeline : undefined,
    generatorCpuUsPerRequest: cpu ? Math.round((cpu.user + cpu.system) / made) : undefined,
    maxSendLagMs: s.ratePerSecond ? r(maxSendLagMs) : undefined });
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
