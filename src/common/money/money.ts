import { ValueTransformer } from 'typeorm';

import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

export const CURRENCY = 'BDT' as const;
export type Currency = typeof CURRENCY;

/** Largest amount a JSON number can carry exactly (2^53 - 1). */
export const MAX_MINOR = Number.MAX_SAFE_INTEGER;

export function assertSafeMinor(value: number, field = 'amountMinor'): number {
  if (!Number.isSafeInteger(value)) {
    throw new AppError(ErrorCode.VALIDATION_FAILED, 'Validation failed', [
      { field, message: `${field} must be an integer between -(2^53-1) and 2^53-1` },
    ]);
  }
  return value;
}

/** Adds minor amounts, refusing to leave the safe-integer range. */
export function addMinor(...values: number[]): number {
  let total = 0;
  for (const v of values) total = assertSafeMinor(total + v, 'total');
  return total;
}

export function multiplyMinor(unit: number, qty: number): number {
  return assertSafeMinor(unit * qty, 'lineTotal');
}

/**
 * BIGINT <-> JS number. PostgreSQL returns BIGINT as a string; values beyond
 * 2^53-1 are refused rather than silently rounded.
 */
export const bigintTransformer: ValueTransformer = {
  to: (value: number | null | undefined) =>
    value === null || value === undefined ? value : assertSafeMinor(value),
  from: (value: string | number | null) => {
    if (value === null || value === undefined) return value;
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new Error('BIGINT value outside the safe integer range');
    return n;
  },
};

/** `৳1,23,456.50` from 12345650 minor units: Bangladeshi lakh grouping (last three digits, then pairs). */
export function formatTaka(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const whole = String(Math.floor(abs / 100));
  const paisa = String(abs % 100).padStart(2, '0');
  const grouped =
    whole.length <= 3
      ? whole
      : `${whole.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ',')},${whole.slice(-3)}`;
  return `${sign}৳${grouped}.${paisa}`;
}

export function assertCurrency(currency: string | undefined): Currency {
  if (currency === undefined || currency === CURRENCY) return CURRENCY;
  throw new AppError(
    ErrorCode.UNSUPPORTED_CURRENCY,
    `Currency ${currency} is not supported; only BDT`,
  );
}
