import { AppError, type ErrorDetail } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

/**
 * Exact sums of minor units (decisions section 14, "sums"). PostgreSQL sums
 * BIGINT columns as NUMERIC; a repository reads such a sum as text
 * (`sum(x)::text`, never `::bigint`, whose parser refuses what a double
 * cannot hold and would turn a large sum into a 500) and adds it up here as
 * a BigInt. A figure is answered only when it fits a JSON number exactly
 * (`Number.isSafeInteger`); otherwise the request is 422
 * AMOUNT_OUT_OF_RANGE naming the app whose figures overflow.
 */
export const MAX_SAFE_MINOR = BigInt(Number.MAX_SAFE_INTEGER);

const INTEGER = /^-?\d+$/;

/** A NUMERIC (or BIGINT) sum as PostgreSQL prints it, exactly; null (an empty sum) is 0. */
export function exactMinor(value: string | number | bigint | null | undefined): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`not an exact integer: ${value}`);
    return BigInt(value);
  }
  if (!INTEGER.test(value)) throw new Error(`not an integer sum: ${value}`);
  return BigInt(value);
}

export function isSafeMinor(value: bigint): boolean {
  return value <= MAX_SAFE_MINOR && value >= -MAX_SAFE_MINOR;
}

/** A figure that overflows: whose it is (an app) and which figure. */
export interface Overflow {
  appId: number;
  /** What the figure is, e.g. `gateway_clearing debitMinor`, `collectedMinor of 2027-03-11`. */
  figure: string;
  value: bigint;
}

/** At most this many details in an error (decisions section 14). */
const MAX_DETAILS = 20;

/**
 * 422 AMOUNT_OUT_OF_RANGE naming the apps whose figures overflow (each app
 * once, in the order given), for this request alone.
 */
export function figuresOutOfRange(what: string, overflows: Overflow[]): AppError {
  const byApp = new Map<number, Overflow>();
  for (const o of overflows) if (!byApp.has(o.appId)) byApp.set(o.appId, o);
  const apps = [...byApp.keys()];
  const named =
    apps.length === 1
      ? `app ${apps[0]}`
      : `apps ${apps.slice(0, MAX_DETAILS).join(', ')}${apps.length > MAX_DETAILS ? ', ...' : ''}`;
  const details: ErrorDetail[] = [...byApp.values()].slice(0, MAX_DETAILS).map((o) => ({
    field: 'applicationId',
    message: `app ${o.appId}: ${o.figure} is ${o.value.toString()}, above 2^53-1 (${Number.MAX_SAFE_INTEGER})`,
  }));
  return new AppError(
    ErrorCode.AMOUNT_OUT_OF_RANGE,
    `${what} of ${named} exceed 2^53-1 minor units and cannot be answered exactly; ask for another app (applicationId)`,
    details,
  );
}

/** The figure as a JSON-safe number, or 422 naming `appId`. */
export function safeMinor(value: bigint, appId: number, what: string, figure: string): number {
  if (!isSafeMinor(value)) throw figuresOutOfRange(what, [{ appId, figure, value }]);
  return Number(value);
}
