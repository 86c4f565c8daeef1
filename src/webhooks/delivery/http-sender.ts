import {
  Agent as HttpAgent,
  IncomingMessage,
  request as httpRequest,
  RequestOptions,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, LookupFunction } from 'node:net';

import type { ResolvedAddress } from '../security/target-resolver';

export const RESPONSE_EXCERPT_BYTES = 1024;

export interface SendOutcome {
  statusCode: number | null;
  /** First 1 KiB of the response body (UTF-8, lossy). */
  excerpt: string | null;
  /** null when a response arrived; otherwise why not (TIMEOUT, ECONNREFUSED, ...). */
  error: string | null;
}

export interface SendRequest {
  url: URL;
  target: ResolvedAddress;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Keep-alive connection pools (from `deliveryAgents()`); without them, one connection per request. */
  agents?: DeliveryAgents;
}

export interface DeliveryAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

/**
 * Keep-alive pools shared by every delivery of one dispatcher: a healthy
 * endpoint's requests reuse warm connections instead of paying a TCP (and
 * TLS) handshake each. Pools are keyed by host and port; a new connection
 * still goes to the pinned, checked address, and a reused one was checked
 * when it was opened.
 */
export function deliveryAgents(maxSocketsPerHost: number): DeliveryAgents {
  const opts = {
    keepAlive: true,
    maxSockets: maxSocketsPerHost,
    maxFreeSockets: maxSocketsPerHost,
    timeout: 60_000,
    scheduling: 'lifo' as const,
  };
  return { http: new HttpAgent(opts), https: new HttpsAgent(opts) };
}

/** A lookup that always answers the already-checked address (no second DNS query). */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/**
 * One POST of a webhook body: node:http(s), the resolved address pinned,
 * redirects not followed (a 3xx is just a non-2xx answer), one deadline for
 * connect + response. The connection goes back to `agents`' pool after a
 * complete answer; it is closed after a timeout, an abort, an error or an
 * answer longer than the excerpt. Never throws.
 */
export function sendWebhook(req: SendRequest): Promise<SendOutcome> {
  if (req.signal?.aborted)
    return Promise.resolve({
      statusCode: null,
      excerpt: null,
      error: 'ABORTED: dispatcher stopped',
    });
  return new Promise((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    let statusCode: number | null = null;
    const finish = (outcome: SendOutcome, reusable = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
      if (!reusable || !req.agents) client.destroy();
    };
    const excerpt = () =>
      size > 0 ? Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8') : '';
    const https = req.url.protocol === 'https:';
    const host = req.url.hostname.replace(/^\[(.*)\]$/, '$1');
    const options: RequestOptions = {
      method: 'POST',
      host,
      port: req.url.port || (https ? 443 : 80),
      path: `${req.url.pathname}${req.url.search}`,
      headers: {
        ...req.headers,
        'Content-Type': 'application/json',
        'Content-Length': String(req.body.length),
        'User-Agent': 'Joma-Webhooks/1',
        Host: req.url.host,
      },
      lookup: pinnedLookup(req.target),
      agent: req.agents ? (https ? req.agents.https : req.agents.http) : false,
      // SNI and certificate checks against the host name, while connecting to the pinned address.
      ...(https && !isIP(host) ? { servername: host } : {}),
    };
    const client = (https ? httpsRequest : httpRequest)(options, (res: IncomingMessage) => {
      statusCode = res.statusCode ?? null;
      res.on('data', (chunk: Buffer) => {
        if (size < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_EXCERPT_BYTES) finish({ statusCode, excerpt: excerpt(), error: null });
      });
      res.on('end', () => finish({ statusCode, excerpt: excerpt(), error: null }, true));
      res.on('error', () => finish({ statusCode, excerpt: excerpt(), error: null }));
    });
    const timer = setTimeout(
      () =>
        finish({
          statusCode,
          excerpt: statusCode === null ? null : excerpt(),
          error: statusCode === null ? `TIMEOUT: no response within ${req.timeoutMs} ms` : null,
        }),
      req.timeoutMs,
    );
    const onAbort = () =>
      finish({ statusCode: null, excerpt: null, error: 'ABORTED: dispatcher stopped' });
    req.signal?.addEventListener('abort', onAbort);
    client.on('error', (err: NodeJS.ErrnoException) => {
      finish({ statusCode: null, excerpt: null, error: connectionError(err.code, host) });
    });
    client.end(req.body);
  });
}

/**
 * What a failed connection is recorded as: its code and the URL's host name,
 * never Node's message, which names the address connected to (the address a
 * host resolved to is not the app's to see; decisions 14 as amended).
 */
export function connectionError(code: string | undefined, host: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return `ECONNREFUSED: connection refused by ${host}`;
    case 'ECONNRESET':
      return `ECONNRESET: connection reset by ${host}`;
    case 'EPIPE':
      return `EPIPE: ${host} closed the connection`;
    case 'ETIMEDOUT':
      return `ETIMEDOUT: connecting to ${host} timed out`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return `${code}: ${host} is unreachable`;
  }
  if (code && /CERT|TLS|SSL|SIGNATURE|ISSUER|ALTNAME/.test(code))
    return `${code}: TLS handshake with ${host} failed`;
  return `${code && /^[A-Z0-9_]+$/.test(code) ? code : 'NETWORK_ERROR'}: connection to ${host} failed`;
}
