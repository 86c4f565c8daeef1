import { AppError, ErrorDetail } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';

export const PRICE_TYPES = ['ONE_TIME', 'RECURRING'] as const;
export type PriceType = (typeof PRICE_TYPES)[number];
export const PRICE_INTERVALS = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type PriceInterval = (typeof PRICE_INTERVALS)[number];

export const MAX_TRIAL_DAYS = 730;
/** A billing period may be at most three years long (as Stripe allows). */
export const MAX_INTERVAL_COUNT: Readonly<Record<PriceInterval, number>> = {
  DAY: 1095,
  WEEK: 156,
  MONTH: 36,
  YEAR: 3,
};

export interface PriceTermsInput {
  type: PriceType;
  interval?: PriceInterval;
  intervalCount?: number;
  trialDays?: number;
}

export type PriceTerms =
  | { type: 'ONE_TIME'; interval: null; intervalCount: null; trialDays: null }
  | { type: 'RECURRING'; interval: PriceInterval; intervalCount: number; trialDays: number };

/**
 * The cross-field rules of a price (field types and ranges are checked by the
 * DTO): RECURRING needs interval and intervalCount, trialDays defaults to 0;
 * ONE_TIME takes none of interval, intervalCount or trialDays.
 */
export function priceTerms(input: PriceTermsInput): PriceTerms {
  const details: ErrorDetail[] = [];
  if (input.type === 'ONE_TIME') {
    for (const field of ['interval', 'intervalCount', 'trialDays'] as const) {
      if (input[field] !== undefined && input[field] !== null)
        details.push({ field, message: `${field} is only allowed for RECURRING prices` });
    }
    if (details.length)
      throw new AppError(ErrorCode.VALIDATION_FAILED, 'Validation failed', details);
    return { type: 'ONE_TIME', interval: null, intervalCount: null, trialDays: null };
  }
  const { interval, intervalCount } = input;
  if (interval === undefined || interval === null)
    details.push({ field: 'interval', message: 'interval is required for RECURRING prices' });
  if (intervalCount === undefined || intervalCount === null) {
    details.push({
      field: 'intervalCount',
      message: 'intervalCount is required for RECURRING prices',
    });
  } else if (interval && intervalCount > MAX_INTERVAL_COUNT[interval]) {
    details.push({
      field: 'intervalCount',
      message: `intervalCount must not exceed ${MAX_INTERVAL_COUNT[interval]} for interval ${interval} (at most three years)`,
    });
  }
  const trialDays = input.trialDays ?? 0;
  if (!Number.isInteger(trialDays) || trialDays < 0 || trialDays > MAX_TRIAL_DAYS) {
    details.push({
      field: 'trialDays',
      message: `trialDays must be an integer from 0 to ${MAX_TRIAL_DAYS}`,
    });
  }
  if (details.length) throw new AppError(ErrorCode.VALIDATION_FAILED, 'Validation failed', details);
  return { type: 'RECURRING', interval: interval!, intervalCount: intervalCount!, trialDays };
}
