import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

import { blockedReason } from './address-guard';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (injectable for tests). */
export type ResolveAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** How long one DNS query for a webhook host may take (c-ares, one try). */
export const DNS_TIMEOUT_MS = 2000;

const resolvers = new Map<string, Resolver>();
/** Lookups in progress, by servers and host name. */
const lookupsInFlight = new Map<string, Promise<{ address: string; family: number }[]>>();

function resolverFor(servers: readonly string[]): Resolver {
  const key = servers.join(',');
  let resolver = resolvers.get(key);
  if (!resolver) {
    resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 1 });
    if (servers.length > 0) resolver.setServers([...servers]);
    resolvers.set(key, resolver);
  }
  return resolver;
}

/**
 * Webhook DNS through c-ares (`dns.Resolver`: A and AAAA, 2 s, one try)
 * rather than the system's getaddrinfo, which holds one of libuv's threads
 * (shared with password hashing) until it gives up, however soon the
 * caller's deadline passes. Concurrent lookups of one host share one query.
 * `servers` (WEBHOOK_DNS_SERVERS) overrides the system's resolvers.
 * `localhost` and `*.localhost` are loopback by definition (RFC 6761); other
 * /etc/hosts entries are not consulted.
 */
export function aresResolveAll(servers: readonly string[] = []): ResolveAll {
  return (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) {
      return Promise.resolve([
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ]);
    }
    const key = `${servers.join(',')}|${name}`;
    let lookup = lookupsInFlight.get(key);
    if (!lookup) {
      const resolver = resolverFor(servers);
      lookup = Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)])
        .then(([v4, v6]) => {
          const answers = [
            ...(v4.status === 'fulfilled'
              ? v4.value.map((address) => ({ address, family: 4 }))
              : []),
            ...(v6.status === 'fulfilled'
              ? v6.value.map((address) => ({ address, family: 6 }))
              : []),
          ];
          if (answers.length === 0) {
            throw v4.status === 'rejected' ? v4.reason : new Error(`${name} has no address`);
          }
          return answers;
        })
        .finally(() => lookupsInFlight.delete(key));
      lookupsInFlight.set(key, lookup);
    }
    return lookup;
  };
}

export class TargetRefused extends Error {
  constructor(
    readonly code: 'TARGET_NOT_ALLOWED' | 'DNS_FAILED',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Resolves a webhook host once and applies the SSRF guard to every address
 * it has (one private answer is enough to refuse: a host that mixes public
 * and private answers is a rebinding setup). A refusal names the host, never
 * the address it resolved to. The caller connects to the
 * returned address and no other, so there is no second lookup to rebind.
 */
export async function resolveTarget(
  hostname: string,
  opts: { allowPrivate: boolean; resolveAll?: ResolveAll; dnsServers?: readonly string[] },
): Promise<ResolvedAddress> {
  let answers: { address: string; family: number }[];
  const literal = isIP(hostname);
  if (literal) {
    answers = [{ address: hostname, family: literal }];
  } else {
    try {
      answers = await (opts.resolveAll ?? aresResolveAll(opts.dnsServers))(hostname);
    } catch (err) {
      throw new TargetRefused(
        'DNS_FAILED',
        `${hostname} could not be resolved (${(err as { code?: string }).code ?? 'error'})`,
      );
    }
    if (answers.length === 0) throw new TargetRefused('DNS_FAILED', `${hostname} has no address`);
  }
  if (!opts.allowPrivate) {
    // Never which address (decisions 14 as amended): the refusal is recorded where the app reads it.
    if (answers.some((a) => blockedReason(a.address) !== null))
      throw new TargetRefused(
        'TARGET_NOT_ALLOWED',
        literal ? `${hostname} is a private address` : `${hostname} resolves to a private address`,
      );
  }
  const first = answers[0];
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** `p`, or the error of `onTimeout` once `ms` have passed (a lookup cannot be cancelled, only abandoned). */
export function withDeadline<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(onTimeout()), ms);
    }),
  ]);
}
