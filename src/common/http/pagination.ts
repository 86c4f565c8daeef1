import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Page, PaginationMeta } from './envelope';

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
      description: '0-based page number',
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

    @ApiPropertyOptional({ enum: sortFields, default: 'createdAt' })
    @IsOptional()
    @IsIn(sortFields as unknown as string[])
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
  }
  return PageQueryBase;
}

export function paginationMeta(page: number, size: number, total: number): PaginationMeta {
  return { page, size, totalElements: total, totalPages: size > 0 ? Math.ceil(total / size) : 0 };
}

/**
 * The list order: the sort field, then `id` as the tie-breaker, both in the
 * requested direction. Nulls go last only for columns that can hold them:
 * on NOT NULL columns PostgreSQL's defaults (NULLS FIRST when descending)
 * are kept, because an explicit NULLS LAST there stops the `(..., field
 * DESC, id DESC)` indexes from serving the order (every request would read
 * and sort the whole partition).
 */
export function orderForPage<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  query: PageQuery,
): void {
  const sortBy = query.sortBy ?? 'createdAt';
  const order = (query.order ?? 'desc').toUpperCase() as 'ASC' | 'DESC';
  const column = qb.expressionMap.mainAlias?.hasMetadata
    ? qb.expressionMap.mainAlias.metadata.findColumnWithPropertyName(sortBy)
    : undefined;
  if (column?.isNullable) qb.orderBy(`${alias}.${sortBy}`, order, 'NULLS LAST');
  else qb.orderBy(`${alias}.${sortBy}`, order);
  qb.addOrderBy(`${alias}.id`, order);
}

/** Applies sort and paging to a query and returns the Page the envelope unwraps. */
export async function pageOf<T extends ObjectLiteral, R = T>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  query: PageQuery,
  map?: (row: T) => R,
): Promise<Page<R>> {
  orderForPage(qb, alias, query);
  const unpaginated = query.paginate === false;
  const page = unpaginated ? 0 : (query.page ?? 0);
  const size = unpaginated ? UNPAGINATED_LIMIT : (query.size ?? DEFAULT_PAGE_SIZE);
  qb.skip(page * size).take(size);
  const [rows, total] = await qb.getManyAndCount();
  const items = map ? rows.map(map) : (rows as unknown as R[]);
  return new Page(items, paginationMeta(page, unpaginated ? items.length : size, total));
}
