import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Max, MaxLength, Min } from 'class-validator';
import { CLS_REQ, ClsServiceManager } from 'nestjs-cls';
import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

import { AppError } from '../errors/app-error';
import { Page, PaginationMeta } from './envelope';
import type { JomaRequest } from './request-context';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** `paginate=false` returns every match up to this many. */
export const UNPAGINATED_LIMIT = 1000;
/** Largest page number: keeps page * size an exact integer (a larger OFFSET was a 500). */
export const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / MAX_PAGE_SIZE);

export interface PageQuery<S extends string = string> {
  page?: number;
  size?: number;
  sortBy?: S;
  order?: 'asc' | 'desc';
  paginate?: boolean;
  cursor?: string;
}

/** Offset paging stops here (page * size); deeper pages take `cursor`. */
export const MAX_OFFSET = 10_000;

interface Cursor {
  /** created_at in epoch microseconds (exact: timestamps may carry microseconds). */
  us: string;
  id: number;
}

/** Bytes of HMAC-SHA256 a cursor carries. */
const CURSOR_MAC_BYTES = 16;
/** Query parameters that move through a list rather than choose what it lists: not part of a cursor's binding. */
const PAGING_PARAMS = new Set(['page', 'size', 'cursor', 'paginate', 'sortBy', 'order', 'sort']);
/** For a list paged outside any request (no deployment key at hand): good for this process only. */
const PROCESS_CURSOR_KEY = randomBytes(32);

/**
 * What a cursor is bound to (decisions section 1 as amended): the list
 * that issued it (the request's path, ids in it included) and its filters
 * (every query parameter but paging and order, sorted), and the key it is
 * signed with (the deployment's, set on the request on arrival).
 */
function cursorBinding(): { key: Buffer; binding: string } {
  const cls = ClsServiceManager.getClsService();
  const req = cls.isActive()
    ? cls.get<(JomaRequest & { raw?: JomaRequest }) | undefined>(CLS_REQ)
    : undefined;
  const node = req?.raw ?? req;
  if (!node) return { key: PROCESS_CURSOR_KEY, binding: '' };
  const url = String(node.originalUrl ?? node.url ?? '');
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(/\/+$/, '');
  const filters = [...new URLSearchParams(q < 0 ? '' : url.slice(q + 1))]
    .filter(([name]) => !PAGING_PARAMS.has(name))
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return {
    key: node.cursorKey ?? req?.cursorKey ?? PROCESS_CURSOR_KEY,
    binding: JSON.stringify([path, filters]),
  };
}

function cursorMac(key: Buffer, binding: string, payload: Buffer): Buffer {
  return createHmac('sha256', key)
    .update('joma list cursor v1\0')
    .update(binding)
    .update('\0')
    .update(payload)
    .digest()
    .subarray(0, CURSOR_MAC_BYTES);
}

/** The position, then a keyed MAC over it and what the cursor is bound to, as one base64url token. */
function encodeCursor(c: Cursor): string {
  const { key, binding } = cursorBinding();
  const payload = Buffer.from(`${c.us}.${c.id}`, 'utf8');
  return Buffer.concat([payload, cursorMac(key, binding, payload)]).toString('base64url');
}

/** A cursor's time lies in 1970..2255 (epoch microseconds): a tampered one is refused, never sent to the database to overflow. */
const MAX_CURSOR_US = 9e15;

/**
 * A cursor this list gave for these filters, or 400 VALIDATION_FAILED: one
 * altered (its MAC no longer matches), given by another list, or presented
 * with other filters is refused; a cursor carries no filter of its own.
 */
function decodeCursor(raw: string): Cursor {
  const refused = () =>
    AppError.validation(
      'cursor',
      'cursor is not one this list gave for these filters (pass pagination.nextCursor as it is, with the same filters as the page that gave it)',
    );
  const bytes = Buffer.from(raw, 'base64url');
  // Only the canonical spelling: no second string decodes to the same bytes.
  if (bytes.length <= CURSOR_MAC_BYTES || bytes.toString('base64url') !== raw) throw refused();
  const payload = bytes.subarray(0, bytes.length - CURSOR_MAC_BYTES);
  const { key, binding } = cursorBinding();
  if (!timingSafeEqual(bytes.subarray(payload.length), cursorMac(key, binding, payload)))
    throw refused();
  const m = /^(\d{1,16})\.(\d{1,16})$/.exec(payload.toString('utf8'));
  const id = m ? Number(m[2]) : NaN;
  if (!m || !Number.isSafeInteger(id) || id < 1 || Number(m[1]) > MAX_CURSOR_US) throw refused();
  return { us: m[1], id };
}

/**
 * Keyset cursors for lists paged by a repository's own SQL, in the same
 * opaque form (and with the same refusal of tampered values) as `pageOf`'s:
 * a leading integer (a time in microseconds, or a rank) and the row's id.
 */
export function encodeKeyset(first: string | number, id: number): string {
  return encodeCursor({ us: String(first), id });
}

export function decodeKeyset(raw: string): { first: string; id: number } {
  const c = decodeCursor(raw);
  return { first: c.us, id: c.id };
}

/**
 * A query integer: digits become a number only when it is a safe integer
 * (so ids beyond 2^53-1 fail validation as 400, never reach PostgreSQL).
 */
export const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value))
    ? Number(value)
    : value;
export const toBool = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

/**
 * Query DTO base for a list: page (0-based), size (1..100, default 20),
 * sortBy (only the list's documented fields), order (asc|desc), paginate.
 */
export function PageQueryDto<const S extends readonly string[]>(sortFields: S) {
  class PageQueryBase implements PageQuery<S[number]> {
    @ApiPropertyOptional({
      type: 'integer',
      minimum: 0,
      maximum: MAX_PAGE,
      default: 0,
      description: `0-based page number; page * size may not pass ${MAX_OFFSET} (400): deeper pages take \`cursor\``,
    })
    @IsOptional()
    @Transform(toInt)
    @IsInt()
    @Min(0)
    @Max(MAX_PAGE)
    page?: number;

    @ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
    })
    @IsOptional()
    @Transform(toInt)
    @IsInt()
    @Min(1)
    @Max(MAX_PAGE_SIZE)
    size?: number;

    @ApiPropertyOptional({
      enum: sortFields,
      default: 'createdAt',
      description:
        'Ties break by id in the same direction. Admin searches of invoices, payments, webhook deliveries and subscriptions across apps (without both applicationId and mode) sort by createdAt or id only.',
    })
    @IsOptional()
    @IsIn([...sortFields])
    sortBy?: S[number];

    @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
    @IsOptional()
    @IsIn(['asc', 'desc'])
    order?: 'asc' | 'desc';

    @ApiPropertyOptional({
      type: 'boolean',
      default: true,
      description: `false returns every match, up to ${UNPAGINATED_LIMIT}`,
    })
    @IsOptional()
    @Transform(toBool)
    @IsBoolean()
    paginate?: boolean;

    @ApiPropertyOptional({
      type: 'string',
      maxLength: 100,
      pattern: '^[A-Za-z0-9_-]+$',
      description:
        'pagination.nextCursor of the previous page: keyset paging at any depth in the default newest-first order (same filters; page is ignored; totals stay exact)',
    })
    @IsOptional()
    @MaxLength(100)
    @Matches(/^[A-Za-z0-9_-]+$/, { message: 'cursor must be a pagination.nextCursor value' })
    cursor?: string;
  }
  return PageQueryBase;
}

export function paginationMeta(page: number, size: number, total: number): PaginationMeta {
  return { page, size, totalElements: total, totalPages: size > 0 ? Math.ceil(total / size) : 0 };
}

/**
 * The list order: the sort field, then `id` as the tie-breaker, both in the
 * requested direction (no tie-breaker for a field whose values are unique
 * in the list: its unique index serves it alone). Nulls go last only for
 * columns that can hold them: on NOT NULL columns PostgreSQL's defaults
 * (NULLS FIRST when descending) are kept, because an explicit NULLS LAST
 * there stops the `(..., field DESC, id DESC)` indexes from serving the
 * order (every request would read and sort the whole partition).
 */
export function orderForPage<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  query: PageQuery,
  unique: readonly string[] = [],
): void {
  const sortBy = query.sortBy ?? 'createdAt';
  const order = (query.order ?? 'desc').toUpperCase() as 'ASC' | 'DESC';
  const column = qb.expressionMap.mainAlias?.hasMetadata
    ? qb.expressionMap.mainAlias.metadata.findColumnWithPropertyName(sortBy)
    : undefined;
  if (column?.isNullable) qb.orderBy(`${alias}.${sortBy}`, order, 'NULLS LAST');
  else qb.orderBy(`${alias}.${sortBy}`, order);
  if (sortBy !== 'id' && !unique.includes(sortBy)) qb.addOrderBy(`${alias}.id`, order);
}

export interface PageOptions {
  /**
   * The exact total from a counter, for a query with no filter beyond its
   * partition (or none at all); otherwise the matching rows are counted.
   */
  total?: () => Promise<number>;
  /** Sort fields unique within the list (no `id` tie-breaker). */
  unique?: readonly string[];
  /**
   * False when the query spans apps or modes (an operator's search without
   * `applicationId` and `mode`): only `createdAt` and `id` have indexes
   * across partitions, so other sorts are refused there rather than read
   * and sort every matching row.
   */
  partitioned?: boolean;
}

/** Sorts with an index across every partition (operators' searches). */
const CROSS_PARTITION_SORTS = ['createdAt', 'id'];

/**
 * Applies sort and paging to a query and returns the Page the envelope
 * unwraps. Offset pages are capped (page * size <= MAX_OFFSET) and read
 * as a deferred join (the page's ids from the index first, then only those
 * rows); `cursor` (the default newest-first order only) pages by keyset at
 * any depth, and `nextCursor` is returned while more rows follow in that
 * order. Totals are exact either way (counted without the cursor's
 * position, or read from a counter).
 */
export async function pageOf<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  query: PageQuery,
  options: PageOptions = {},
): Promise<Page<T>> {
  const unpaginated = query.paginate === false;
  const sortBy = query.sortBy ?? 'createdAt';
  const keysetOrder = sortBy === 'createdAt' && (query.order ?? 'desc') === 'desc';
  if (options.partitioned === false && !CROSS_PARTITION_SORTS.includes(sortBy))
    throw AppError.validation(
      'sortBy',
      `sortBy=${sortBy} needs applicationId and mode (across apps only createdAt and id are sortable)`,
    );
  const size = unpaginated ? UNPAGINATED_LIMIT : (query.size ?? DEFAULT_PAGE_SIZE);
  const cursor = query.cursor && !unpaginated ? decodeCursor(query.cursor) : null;
  if (cursor && !keysetOrder)
    throw AppError.validation(
      'cursor',
      'cursor pages only the default order (createdAt, newest first)',
    );
  const page = unpaginated || cursor ? 0 : (query.page ?? 0);
  if (!unpaginated && !cursor && page * size > MAX_OFFSET)
    throw AppError.validation(
      'page',
      `page * size may not pass ${MAX_OFFSET}: for deeper pages pass pagination.nextCursor as cursor`,
    );
  const total = options.total ? await options.total() : await qb.clone().getCount();
  const limit = unpaginated ? size : size + 1;
  if (cursor) {
    qb.andWhere(
      `(${alias}.createdAt, ${alias}.id) < (TIMESTAMPTZ 'epoch' + :cursorUs * INTERVAL '1 microsecond', :cursorId)`,
      { cursorUs: cursor.us, cursorId: cursor.id },
    );
  } else if (page > 0) {
    // Deferred join: walk the OFFSET over the index alone, then read just the page's rows.
    const ids = qb.clone().select(`${alias}.id`, 'id');
    orderForPage(ids, alias, query, options.unique);
    const found = (await ids
      .offset(page * size)
      .limit(limit)
      .getRawMany()) as { id: unknown }[];
    qb.andWhere(`${alias}.id = ANY(:pageIds)`, { pageIds: found.map((r) => Number(r.id)) });
  }
  orderForPage(qb, alias, query, options.unique);
  if (cursor || page === 0) qb.take(limit);
  // The exact timestamp (microseconds) for the cursor: a JS Date keeps milliseconds only.
  if (keysetOrder && !unpaginated)
    qb.addSelect(`(extract(epoch from ${alias}.createdAt) * 1000000)::bigint`, 'cursor_us');
  const { entities: fetched, raw } = await qb.getRawAndEntities();
  const more = !unpaginated && fetched.length > size;
  const rows = more ? fetched.slice(0, size) : fetched;
  let nextCursor: string | undefined;
  if (more && keysetOrder) {
    const last = rows[rows.length - 1] as ObjectLiteral;
    const lastRaw = (raw as Record<string, unknown>[]).find(
      (r) => String(r[`${alias}_id`]) === String(last.id),
    );
    if (lastRaw?.cursor_us !== undefined)
      nextCursor = encodeCursor({ us: String(lastRaw.cursor_us), id: Number(last.id) });
  }
  const meta = paginationMeta(page, unpaginated ? rows.length : size, total);
  return new Page(rows, nextCursor ? { ...meta, nextCursor } : meta);
}
