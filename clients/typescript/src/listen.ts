import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createJomaClient, type JomaClient } from './client.js';
import { unwrap } from './errors.js';
import { paginate, unwrapPage } from './paginate.js';
import { verifyWebhook, WebhookVerificationError } from './webhooks.js';

/**
 * `joma listen`: a mode's events, forwarded to a URL on your machine while
 * you develop, like `stripe listen`.
 *
 * - With `publicUrl` (a tunnel to this machine, e.g. an ngrok URL), it
 *   listens on `port`, registers a TEST webhook endpoint at that URL (or
 *   reuses the one already there, rotating its secret), verifies each
 *   delivery Joma sends, and forwards its exact bytes and signature headers
 *   to `forwardTo`, answering Joma with your server's status (so a failure
 *   is retried as in production).
 * - Without one, it polls GET /events and forwards each new event as a
 *   delivery would look, signed with a secret of this session (printed at
 *   start; the body's `id` is then the event's id, not a delivery's).
 */
export interface ListenOptions {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** Where each event is POSTed, e.g. http://localhost:4242/webhooks; none: only printed. */
  forwardTo?: string;
  /** A public URL that reaches `port` on this machine. */
  publicUrl?: string;
  /** Port of the receiver behind `publicUrl` (default 4243; 0 picks one). */
  port?: number;
  /** Only these event types (default: all). */
  events?: string[];
  /** Poll every this many ms (default 2000). */
  intervalMs?: number;
  /** Print each body too. */
  printJson?: boolean;
  /** Where lines go (default stdout). */
  log?: (line: string) => void;
}

export interface Listener {
  /** The secret that signs what is forwarded (the endpoint's, or this session's). */
  secret: string;
  /** 'deliveries' behind a public URL, 'events' when polling. */
  source: 'deliveries' | 'events';
  /** The receiver's port (deliveries only). */
  port?: number;
  /** How many events were forwarded (or printed). */
  forwarded(): number;
  stop(): Promise<void>;
}

interface EventItem {
  id: number;
  type: string;
  createdAt: string;
  mode: string;
  applicationId: number;
  data: Record<string, unknown>;
}

/** JSON with every object's keys sorted: `data` as Joma spells it in a delivery. */
function sortedJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => sortedJson(v ?? null)).join(',')}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${sortedJson(o[k])}`)
    .join(',')}}`;
}

/** A delivery's body for an event of GET /events, byte for byte as Joma builds one. */
export function deliveryBody(e: EventItem): string {
  return (
    `{"id":${e.id},"type":${JSON.stringify(e.type)},"created_at":${JSON.stringify(e.createdAt)}` +
    `,"mode":${JSON.stringify(e.mode)},"app_id":${e.applicationId},"schema_version":1` +
    `,"data":${sortedJson(e.data)}}`
  );
}

/** The headers Joma signs a delivery with (v2 and v1). */
export function signedHeaders(
  body: string,
  secret: string,
  id: string,
  type: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const v2 = createHmac('sha256', secret).update(`${nowSeconds}.`).update(body).digest('hex');
  const v1 = createHmac('sha256', secret).update(body).digest('hex');
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'joma-listen',
    'X-Webhook-Id': id,
    'X-Webhook-Event': type,
    'X-Webhook-Timestamp': String(nowSeconds),
    'X-Webhook-Signature-V2': `t=${nowSeconds},v1=${v2}`,
    'X-Webhook-Signature': v1,
  };
}

const time = () => new Date().toISOString().replace('T', ' ').slice(0, 19);

async function forward(
  to: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(to, {
      method: 'POST',
      body,
      headers,
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, text: `[${res.status}]` };
  } catch (err) {
    return { status: 0, text: `[failed: ${err instanceof Error ? err.message : String(err)}]` };
  }
}

export async function listen(options: ListenOptions): Promise<Listener> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  if (/^pk_live_/.test(options.apiKey) && options.publicUrl)
    throw new Error('joma listen registers TEST endpoints only: use a TEST key with --public-url');
  const joma = createJomaClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    apiSecret: options.apiSecret,
  });
  const wanted = (type: string) => !options.events?.length || options.events.includes(type);
  let count = 0;
  const show = async (id: string, type: string, body: string, headers: Record<string, string>) => {
    count++;
    if (!options.forwardTo) {
      log(`${time()}  --> ${type} [${id}]`);
    } else {
      const result = await forward(options.forwardTo, body, headers);
      log(`${time()}  --> ${type} [${id}]  POST ${options.forwardTo} ${result.text}`);
      if (options.printJson) log(body);
      return result.status;
    }
    if (options.printJson) log(body);
    return 200;
  };
  return options.publicUrl
    ? listenForDeliveries(joma, options, log, wanted, show, () => count)
    : listenByPolling(joma, options, log, wanted, show, () => count);
}

type Show = (
  id: string,
  type: string,
  body: string,
  headers: Record<string, string>,
) => Promise<number>;

async function listenByPolling(
  joma: JomaClient,
  options: ListenOptions,
  log: (line: string) => void,
  wanted: (type: string) => boolean,
  show: Show,
  forwarded: () => number,
): Promise<Listener> {
  const secret = `whsec_listen_${randomBytes(24).toString('hex')}`;
  const newest = await unwrap(
    joma.GET('/api/v1/events', { params: { query: { sortBy: 'id', order: 'desc', size: 1 } } }),
  );
  let last = newest[0]?.id ?? 0;
  log(`Polling ${options.baseUrl}/api/v1/events for new events (no public URL given).`);
  log(`Forwarded events are signed with this session's secret: ${secret}`);
  let stopped = false;
  let wake: (() => void) | null = null;
  const loop = (async () => {
    while (!stopped) {
      try {
        // Only what is new (afterId), oldest first, a hundred at a time: a poll that finds
        // nothing is one request, which the service logs at debug rather than info.
        const fresh: EventItem[] = [];
        for (let after = last; ;) {
          const { data } = await unwrapPage(
            joma.GET('/api/v1/events', {
              params: { query: { afterId: after, sortBy: 'id', order: 'asc', size: 100 } },
            }),
          );
          fresh.push(...data);
          if (data.length < 100) break;
          after = data[data.length - 1].id;
        }
        for (const e of fresh) {
          last = Math.max(last, e.id);
          if (!wanted(e.type)) continue;
          const body = deliveryBody(e);
          await show(
            `evt_${e.id}`,
            e.type,
            body,
            signedHeaders(body, secret, String(e.id), e.type),
          );
        }
      } catch (err) {
        log(
          `${time()}  could not read events: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, options.intervalMs ?? 2000);
      });
    }
  })();
  return {
    secret,
    source: 'events',
    forwarded,
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}

async function listenForDeliveries(
  joma: JomaClient,
  options: ListenOptions,
  log: (line: string) => void,
  wanted: (type: string) => boolean,
  show: Show,
  forwarded: () => number,
): Promise<Listener> {
  const url = options.publicUrl!;
  let existing: { id: number; enabled: boolean } | undefined;
  // Every page of the mode's endpoints: a reused endpoint may be past the first hundred.
  for await (const e of paginate((cursor) =>
    unwrapPage(joma.GET('/api/v1/webhook-endpoints', { params: { query: { size: 100, cursor } } })),
  ))
    if (e.url === url) {
      existing = e;
      break;
    }
  let secret: string;
  if (existing) {
    if (!existing.enabled)
      await unwrap(
        joma.PATCH('/api/v1/webhook-endpoints/{id}', {
          params: { path: { id: existing.id } },
          body: { enabled: true },
        }),
      );
    const rotated = await unwrap(
      joma.POST('/api/v1/webhook-endpoints/{id}/rotate-secret', {
        params: { path: { id: existing.id } },
      }),
    );
    secret = rotated.secret;
    log(`Reusing webhook endpoint ${existing.id} at ${url} (its secret was rotated).`);
  } else {
    const created = await unwrap(
      joma.POST('/api/v1/webhook-endpoints', {
        body: { url, events: ['*'], description: 'joma listen' },
      }),
    );
    secret = created.secret;
    log(`Registered webhook endpoint ${created.id} at ${url}.`);
  }
  log(`Your webhook signing secret is ${secret}`);
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      try {
        const hook = verifyWebhook(raw, req.headers, secret);
        if (!wanted(hook.type)) {
          res.writeHead(200).end();
          return;
        }
        const headers: Record<string, string> = {};
        for (const name of [
          'content-type',
          'user-agent',
          'x-webhook-id',
          'x-webhook-event',
          'x-webhook-timestamp',
          'x-webhook-signature',
          'x-webhook-signature-v2',
        ]) {
          const v = req.headers[name];
          if (typeof v === 'string') headers[name] = v;
        }
        const status = await show(hook.id, hook.type, raw.toString('utf8'), headers);
        res.writeHead(status >= 200 && status < 300 ? 200 : 502).end();
      } catch (err) {
        const refused = err instanceof WebhookVerificationError;
        log(`${time()}  refused a request: ${err instanceof Error ? err.message : String(err)}`);
        res.writeHead(refused ? 400 : 500).end();
      }
    })();
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 4243, '127.0.0.1', ok);
  });
  const port = (server.address() as AddressInfo).port;
  log(`Listening on 127.0.0.1:${port} for deliveries to ${url}.`);
  return {
    secret,
    source: 'deliveries',
    port,
    forwarded,
    stop: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => ok(Buffer.concat(chunks)));
    req.on('error', fail);
  });
}

export const LISTEN_USAGE = `Usage: joma listen [options]

Forwards a mode's events to a URL on your machine while you develop.

  --api-key KEY        app key (or JOMA_API_KEY); its mode is the one listened to
  --api-secret SECRET  app secret (or JOMA_API_SECRET)
  --base-url URL       where Joma runs (or JOMA_BASE_URL; default http://localhost:3000)
  --forward-to URL     POST each event there, signed (default: only print it)
  --public-url URL     a public URL reaching --port here: register (or reuse) a TEST
                       endpoint there and forward real deliveries; without it,
                       poll GET /events
  --port N             port behind --public-url (default 4243)
  --events a,b         only these event types
  --print-json         print each body too`;

/** Parses `joma listen` arguments; an error message instead when they are wrong. */
export function parseListenArgs(
  argv: string[],
  env: Record<string, string | undefined>,
): ListenOptions | string {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) return `Unexpected argument: ${a}`;
    const [name, inline] = a.slice(2).split(/=(.*)/s, 2);
    if (name === 'print-json' || name === 'help') flags.set(name, true);
    else if (inline !== undefined) flags.set(name, inline);
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) flags.set(name, argv[++i]);
    else return `--${name} needs a value`;
  }
  const known = [
    'api-key',
    'api-secret',
    'base-url',
    'forward-to',
    'public-url',
    'port',
    'events',
    'print-json',
    'help',
  ];
  for (const name of flags.keys()) if (!known.includes(name)) return `Unknown option: --${name}`;
  if (flags.has('help')) return LISTEN_USAGE;
  const get = (name: string) => {
    const v = flags.get(name);
    return typeof v === 'string' ? v : undefined;
  };
  const apiKey = get('api-key') ?? env.JOMA_API_KEY;
  const apiSecret = get('api-secret') ?? env.JOMA_API_SECRET;
  if (!apiKey || !apiSecret)
    return 'An app key and secret are needed: --api-key and --api-secret (or JOMA_API_KEY and JOMA_API_SECRET)';
  const port = get('port');
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return '--port must be a port number';
  for (const name of ['base-url', 'forward-to', 'public-url']) {
    const v = get(name);
    if (v !== undefined && !/^https?:\/\/[^\s]+$/.test(v))
      return `--${name} must be an http(s) URL`;
  }
  return {
    baseUrl: (get('base-url') ?? env.JOMA_BASE_URL ?? 'http://localhost:3000').replace(/\/+$/, ''),
    apiKey,
    apiSecret,
    forwardTo: get('forward-to'),
    publicUrl: get('public-url'),
    port: port === undefined ? undefined : Number(port),
    events: get('events')
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    printJson: flags.has('print-json'),
  };
}
