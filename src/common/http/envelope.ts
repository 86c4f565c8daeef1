import { ErrorDetail } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

export interface PaginationMeta {
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
  /** Opaque keyset cursor for the next page, while more rows follow in the default newest-first order. */
  nextCursor?: string;
}

export interface Envelope<T> {
  data: T | null;
  meta: {
    success: boolean;
    message: string;
    errorCode?: ErrorCode;
    timestamp: string;
    details?: ErrorDetail[];
  };
  pagination: PaginationMeta;
}

export const EMPTY_PAGINATION: PaginationMeta = Object.freeze({
  page: 0,
  size: 0,
  totalElements: 0,
  totalPages: 0,
}) as PaginationMeta;

/** A list result a controller returns; the envelope interceptor unwraps it. */
export class Page<T> {
  constructor(
    readonly items: T[],
    readonly pagination: PaginationMeta,
  ) {}

  /** A whole (short, unpaged) list as one page. */
  static all<T>(items: T[]): Page<T> {
    const n = items.length;
    return new Page(items, { page: 0, size: n, totalElements: n, totalPages: n > 0 ? 1 : 0 });
  }
}

export function successEnvelope<T>(data: T, message: string, now: Date): Envelope<T> {
  if (data instanceof Page) {
    return {
      data: data.items as unknown as T,
      meta: { success: true, message, timestamp: now.toISOString() },
      pagination: data.pagination,
    };
  }
  return {
    data: data === undefined ? null : data,
    meta: { success: true, message, timestamp: now.toISOString() },
    pagination: { ...EMPTY_PAGINATION },
  };
}

/** The most `meta.details` entries an error carries. */
export const MAX_ERROR_DETAILS = 20;

export function errorEnvelope(
  code: ErrorCode,
  message: string,
  now: Date,
  details?: ErrorDetail[],
): Envelope<null> {
  return {
    data: null,
    meta: {
      success: false,
      message,
      errorCode: code,
      timestamp: now.toISOString(),
      // At most MAX_ERROR_DETAILS: a hostile body cannot make the error itself huge.
      ...(details && details.length > 0 ? { details: details.slice(0, MAX_ERROR_DETAILS) } : {}),
    },
    pagination: { ...EMPTY_PAGINATION },
  };
}
