import type { components } from './generated/schema.js';

/** Every `meta.errorCode` the API sends (from the OpenAPI document). */
export type ErrorCode = components['schemas']['ErrorCode'];
export type ErrorEnvelope = components['schemas']['ErrorEnvelopeDto'];

/** A non-2xx answer from the API, with its envelope's error code and field details. */
export class JomaApiError extends Error {
  override readonly name = 'JomaApiError';

  constructor(
    readonly status: number,
    readonly errorCode: ErrorCode | 'UNKNOWN',
    message: string,
    readonly details: { field: string; message: string }[] = [],
    /** X-Request-Id of the failed request (quote it to support). */
    readonly requestId?: string,
  ) {
    super(message);
  }

  static from(response: Response, body: unknown): JomaApiError {
    const meta = (body as Partial<ErrorEnvelope> | undefined)?.meta;
    return new JomaApiError(
      response.status,
      meta?.errorCode ?? 'UNKNOWN',
      meta?.message ?? `HTTP ${response.status}`,
      meta?.details ?? [],
      response.headers.get('x-request-id') ?? undefined,
    );
  }
}

/**
 * The `data` of a successful call, or a thrown JomaApiError:
 *   const invoice = await unwrap(client.POST('/api/v1/invoices', { body }));
 */
export async function unwrap<D extends { data?: unknown }>(
  call: Promise<{ data?: D; error?: unknown; response: Response }>,
): Promise<NonNullable<D['data']>> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw JomaApiError.from(response, error);
  return data.data as NonNullable<D['data']>;
}
