import { databaseUnavailable } from './database-errors';

/** Refusals that retrying cannot fix: wrong password or user, no such database, a missing privilege. */
const PERMANENT = new Set(['28P01', '28000', '3D000', '42501']);
/** A name that does not resolve (yet): a container network or DNS still coming up. */
const NOT_YET_RESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

/** Why a start-up step met a database it may reach on a later try; null when trying again is pointless. */
export function transientStartupError(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && PERMANENT.has(code)) return null;
  if (typeof code === 'string' && NOT_YET_RESOLVED.has(code)) return code;
  return databaseUnavailable(err);
}

export interface StartupRetryOptions {
  /** How long, in all, to keep trying (DB_CONNECT_RETRY_MS); 0 = one try. */
  budgetMs: number;
  /** Told of each failed try that will be tried again. */
  warn: (msg: string) => void;
  firstDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Runs a start-up step that needs the database (connecting, migrating),
 * trying again with back-off (250 ms doubling to 5 s) while the failure is
 * one a later try may not meet (a refused or dropped connection, a server
 * starting up) and the budget lasts. Then the last error is thrown.
 */
export async function withStartupRetry<T>(
  what: string,
  step: () => Promise<T>,
  opts: StartupRetryOptions,
): Promise<T> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((ok) => setTimeout(ok, ms)));
  const giveUpAt = now() + opts.budgetMs;
  let delay = opts.firstDelayMs ?? 250;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      const reason = transientStartupError(err);
      if (!reason || now() + delay > giveUpAt) throw err;
      opts.warn(
        `${what}: attempt ${attempt} failed (${reason}); trying again in ${delay} ms (for up to ${Math.ceil(
          Math.max(giveUpAt - now(), 0) / 1000,
        )} s more, DB_CONNECT_RETRY_MS)`,
      );
      await sleep(delay);
      delay = Math.min(delay * 2, opts.maxDelayMs ?? 5_000);
    }
  }
}
