import { createServer, IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { fixture, fixturesOf, GatewayFixture } from '../../src/simulators/gateway-shapes';

/** A request the replayer received. */
export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * The answer body to send for a fixture instead of its own (null or
 * undefined: its own; a string: those bytes).
 * Nagad's encrypted answers carry placeholders in the files: a helper
 * (nagad-test-keys.ts) encrypts and signs the published plaintext with
 * the test's keys.
 */
export type AnswerHook = (name: string, fixture: GatewayFixture) => unknown;

/**
 * Answers an adapter's calls with the gateways' published answers as they
 * are (test/fixtures/gateways), byte for byte: each path ending is given a
 * queue of fixture names (the last one repeats). What the adapter then
 * makes of the answer is the test's to assert. No shape of our own.
 */
export class FixtureReplayer {
  readonly received: Received[] = [];
  private readonly queues = new Map<string, string[]>();
  private server?: Server;
  baseUrl = '';

  constructor(
    readonly gateway: 'bkash' | 'sslcommerz' | 'nagad',
    private readonly answer?: AnswerHook,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.body(req).then((body) => {
        const url = new URL(req.url ?? '/', 'http://replayer');
        this.received.push({
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body,
        });
        const key = [...this.queues.keys()].find((k) => pathIs(url.pathname, k));
        const queue = key ? this.queues.get(key)! : [];
        const name = queue.length > 1 ? queue.shift()! : queue[0];
        if (!name) return res.writeHead(404).end('no fixture queued');
        const f = fixture(this.gateway, name);
        // A hook's string is sent as it is (garbage on purpose); anything else as JSON.
        const hooked = this.answer?.(name, f);
        res
          .writeHead(f.response?.status ?? 200, { 'content-type': 'application/json' })
          .end(
            typeof hooked === 'string'
              ? hooked
              : JSON.stringify(hooked ?? f.response?.body ?? null),
          );
      });
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Answers calls whose path ends with `path` (or goes on after it with ids) with these fixtures in turn (the last repeats). */
  on(path: string, ...names: string[]): this {
    this.queues.set(path, names);
    return this;
  }

  reset(): void {
    this.queues.clear();
    this.received.length = 0;
  }

  calls(path: string): Received[] {
    return this.received.filter((r) => pathIs(r.path, path));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }

  private async body(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}

/**
 * Whether a request path is the call `key` names: the path ends with it,
 * or (calls whose path goes on with ids, Nagad's
 * `check-out/initialize/{merchantId}/{orderId}`) has it before a `/`.
 */
function pathIs(path: string, key: string): boolean {
  return path.endsWith(key) || path.includes(`${key}/`);
}

/** The gateway's fixtures whose name starts with `prefix` (every published variant of one answer). */
export function variants(gateway: string, prefix: string): [string, GatewayFixture][] {
  return [...fixturesOf(gateway).entries()].filter(
    ([name, f]) => name.startsWith(prefix) && f.response?.body,
  );
}
