import {
  createJomaAdminClient,
  createJomaPublicClient,
  type JomaClient,
} from '../../clients/typescript/src/client';

export type Mode = 'TEST' | 'LIVE';

/** An API error as the envelope states it. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details: { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

export interface Pagination {
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
  nextCursor?: string | null;
}

interface Envelope<T> {
  data: T;
  pagination: Pagination;
  meta: { message: string; errorCode?: string; details?: { field: string; message: string }[] };
}

/** Called when the session is refused (expired, revoked): the page returns to the sign-in form. */
let onSignedOut: () => void = () => undefined;
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

/**
 * The data of a typed client call, or an ApiError with the envelope's
 * message. Every call of the dashboard goes through the documented API with
 * the project's own typed client (clients/typescript).
 */
export async function call<T>(
  p: Promise<{ data?: unknown; error?: unknown; response: Response }>,
): Promise<{ data: T; pagination: Pagination }> {
  const { data, error, response } = await p;
  if (error !== undefined || !response.ok) {
    const env = (error ?? data) as Envelope<null> | undefined;
    if (response.status === 401) onSignedOut();
    throw new ApiError(
      env?.meta?.message ?? `HTTP ${response.status}`,
      response.status,
      env?.meta?.errorCode ?? 'HTTP_ERROR',
      env?.meta?.details ?? [],
    );
  }
  const env = data as Envelope<T>;
  return { data: env.data, pagination: env.pagination };
}

const baseUrl = () => location.origin;
// A dashboard call is answered or shown as failed; retries of its own would hide a slow server.
const retry = { retries: 0 };

export const publicApi = (): JomaClient => createJomaPublicClient({ baseUrl: baseUrl(), retry });

/** Admin routes (/api/v1/admin/..., /api/v1/auth/...). */
export const adminApi = (token: string): JomaClient =>
  createJomaAdminClient({ baseUrl: baseUrl(), token, retry });

/** App routes acting on one app and mode (X-App-Id and X-Mode, decisions section 15). */
export const appApi = (token: string, appId: number, mode: Mode): JomaClient =>
  createJomaAdminClient({ baseUrl: baseUrl(), token, retry, actingOn: { appId, mode } });
