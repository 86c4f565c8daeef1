import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { blockedReason } from './address-guard';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (injectable for tests). */
export type ResolveAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** System lookups in progress, by host name. */
const lookupsInFlight = new Map<string, Promise<{ address: string; family: number }[]>>();

/**
 * The system resolver (hosts file, search domains). Each lookup holds one of
 * libuv's 4 threads until getaddrinfo gives up, however soon the caller's
 * deadline passes; so concurrent attempts to one host share one lookup, and a
 * host whose DNS never answers ties up one thread, not every thread that all
 * other endpoints' lookups need.
 */
export const systemResolveAll: ResolveAll = (hostname) => {
  let lookup = lookupsInFlight.get(hostname);
  if (!lookup) {
    lookup = dnsLookup(hostname, { all: true, verbatim: true }).finally(() =>
      lookupsInFlight.delete(hostname),
    );
    lookupsInFlight.set(hostname, lookup);
  }
  return lookup;
};

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
 * and private answers is a rebinding setup). The caller connects to the
 * returned address and no other, so there is no second lookup to rebind.
 */
export async function resolveTarget(
  hostname: string,
  opts: { allowPrivate: boolean; resolveAll?: ResolveAll },
): Promise<ResolvedAddress> {
  let answers: { address: string; family: number }[];
  const literal = isIP(hostname);
  if (literal) {
    answers = [{ address: hostname, family: literal }];
  } else {
    try {
      answers = await (opts.resolveAll ?? systemResolveAll)(hostname);
    } catch (err) {
      throw new TargetRefused(
        'DNS_FAILED',
        `${hostname} could not be resolved (${(err as { code?: string }).code ?? 'error'})`,
      );
    }
    if (answers.length === 0) throw new TargetRefused('DNS_FAILED', `${hostname} has no address`);
  }
  if (!opts.allowPrivate) {
    for (const a of answers) {
      const reason = blockedReason(a.address);
      if (reason)
        throw new TargetRefused(
          'TARGET_NOT_ALLOWED',
          `${hostname} resolves to ${a.address} (${reason})`,
        );
    }
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
