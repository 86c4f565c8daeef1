import { JomaApiError } from './errors.js';

/** A list answer's envelope: its rows and its pagination (with `nextCursor` while more follow). */
export interface ListPage<T> {
  data: T[];
  pagination: { nextCursor?: string };
}

/**
 * Every row of a list, page after page, by keyset cursor:
 *   for await (const invoice of paginate((cursor) =>
 *     unwrapPage(client.GET('/api/v1/invoices', { params: { query: { cursor } } })))) { ... }
 */
export async function* paginate<T>(
  page: (cursor: string | undefined) => Promise<ListPage<T>>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const { data, pagination } = await page(cursor);
    yield* data;
    cursor = pagination.nextCursor;
  } while (cursor);
}

/** The whole envelope of a list call (rows and pagination), or a thrown JomaApiError. */
export async function unwrapPage<T>(
  call: Promise<{
    data?: { data: T[]; pagination: { nextCursor?: string } };
    error?: unknown;
    response: Response;
  }>,
): Promise<ListPage<T>> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw JomaApiError.from(response, error);
  return data;
}
