import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDateString, IsString, Matches, MaxLength } from 'class-validator';

import { DAY_MS, startOfDhakaDay } from '../clock/dhaka-calendar';
import { AppError } from '../errors/app-error';
import type { Mode } from './request-context';
import { OptionalField } from './validation';

/**
 * The filters the invoice, payment and refund lists share (decisions
 * section 20): `from` and `to`, Asia/Dhaka calendar days, both inclusive,
 * on the record's creation time; and `q`, a search term each list matches
 * against the fields it has (invoice number, customer reference, email or
 * phone, payment id or reference, gateway transaction id).
 */

/** A calendar day, `YYYY-MM-DD`. */
export const DHAKA_DAY = /^\d{4}-\d{2}-\d{2}$/;
/**
 * A day, or (operators' searches only) an instant: a date-time with seconds
 * optional and a zone required, the forms JavaScript's Date reads the same
 * everywhere.
 */
export const DAY_OR_INSTANT =
  /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** The longest search term. */
export const MAX_SEARCH_LENGTH = 200;

const trimmed = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const t = value.trim();
  // An empty search box searches nothing: the same as leaving `q` out.
  return t === '' ? undefined : t;
};

/**
 * `from` or `to` on a list query. `instants`: an operator's search, which
 * also takes an ISO date-time with a zone (an instant, `to` exclusive).
 */
export function DateRangeField(
  edge: 'from' | 'to',
  opts: { instants?: boolean } = {},
): PropertyDecorator {
  const day =
    edge === 'from'
      ? `Created on or after this Asia/Dhaka day (YYYY-MM-DD, from 00:00:00+06:00)`
      : `Created on or before this Asia/Dhaka day (YYYY-MM-DD, until 23:59:59.999999+06:00), inclusive`;
  const instant =
    edge === 'from'
      ? ', or at or after this instant (an ISO date-time with Z or an offset)'
      : ', or before this instant (an ISO date-time with Z or an offset)';
  const pattern = opts.instants ? DAY_OR_INSTANT : DHAKA_DAY;
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      ...(opts.instants ? {} : { format: 'date' }),
      pattern: pattern.source,
      example: edge === 'from' ? '2026-12-01' : '2026-12-31',
      description: `${day}${opts.instants ? instant : ''}. A date that is not a real calendar date, or \`from\` after \`to\`, is 400 VALIDATION_FAILED.`,
    }),
    OptionalField(),
    IsString(),
    IsDateString(
      { strict: true },
      {
        message: opts.instants
          ? '$property must be a real calendar date (YYYY-MM-DD) or date-time'
          : '$property must be a real calendar date (YYYY-MM-DD)',
      },
    ),
    Matches(pattern, {
      message: opts.instants
        ? '$property must be YYYY-MM-DD (an Asia/Dhaka day) or an ISO date-time with Z or an offset'
        : '$property must be an Asia/Dhaka calendar day, YYYY-MM-DD',
    }),
  ) as PropertyDecorator;
}

/** `q` on a list query: trimmed; an empty one is no search. */
export function SearchField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      minLength: 1,
      maxLength: MAX_SEARCH_LENGTH,
      example: 'INV-000042',
      description,
    }),
    Transform(trimmed),
    OptionalField(),
    IsString(),
    MaxLength(MAX_SEARCH_LENGTH),
  ) as PropertyDecorator;
}

/** What `from`/`to` select: created at or after `since`, and before `until`. */
export interface CreatedRange {
  since?: Date;
  until?: Date;
}

/** The instant a day or date-time starts (a day: midnight in Dhaka). */
function startOf(value: string): number {
  return DHAKA_DAY.test(value) ? startOfDhakaDay(value) : Date.parse(value);
}

/**
 * The range `from`/`to` select, `until` exclusive: a day `to` ends at the
 * next Dhaka midnight, an instant `to` is itself the end. `from` after `to`
 * is 400 VALIDATION_FAILED naming `from`.
 */
export function createdRange(from?: string, to?: string): CreatedRange {
  const since = from === undefined ? undefined : startOf(from);
  const until =
    to === undefined ? undefined : DHAKA_DAY.test(to) ? startOfDhakaDay(to) + DAY_MS : startOf(to);
  for (const [field, ms] of [
    ['from', since],
    ['to', until],
  ] as const)
    if (ms !== undefined && !Number.isFinite(ms))
      throw AppError.validation(field, `${field} is not a date`);
  const after =
    from !== undefined && to !== undefined && DHAKA_DAY.test(from) && DHAKA_DAY.test(to)
      ? from > to
      : since !== undefined && until !== undefined && since > until;
  if (after) throw AppError.validation('from', `from (${from}) is after to (${to})`);
  return {
    since: since === undefined ? undefined : new Date(since),
    until: until === undefined ? undefined : new Date(until),
  };
}

/**
 * A search term read once into the forms the lists compare their fields
 * with. Every comparison is an equality on an indexed column (the lists
 * find records, they do not scan text).
 */
export interface SearchTerm {
  /** As given (trimmed): a customer reference, a gateway transaction id, a payment reference. */
  text: string;
  /** Upper case: an invoice number (`inv-000042` finds INV-000042), a transaction id typed in lower case. */
  upper: string;
  /** Lower case: an email address. */
  lower: string;
  /** The term as a record id (a payment id), when it is one. */
  id: number | null;
}

export function searchTerm(q: string | undefined): SearchTerm | null {
  if (q === undefined) return null;
  const text = q.trim();
  if (text === '') return null;
  const id = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  return {
    text,
    upper: text.toUpperCase(),
    lower: text.toLowerCase(),
    id: Number.isSafeInteger(id) && id >= 1 ? id : null,
  };
}

/** `value` for a LIKE pattern: its wildcards matched literally. */
export function likePrefix(value: string): string {
  return `${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Where a list's search looks: one partition (an app route: `appId` and
 * `mode`), or an operator's choice (any of them left out: every app or mode;
 * `appIds`: an app-scoped admin's apps).
 */
export interface SearchScope {
  appId?: number;
  appIds?: number[];
  mode?: Mode;
}

/** The most records of another feature one search term is resolved to (ids matched by `= ANY`). */
export const SEARCH_MATCH_LIMIT = 1000;
