import type { Request } from 'express';

/** The two partitions of every app's keys and records: test (sandbox) and live money. */
export type Mode = 'TEST' | 'LIVE';

/** The app and mode of a request's API key, attached as `principalApp` once the key is verified. */
export interface AppPrincipal {
  appId: number;
  appName: string;
  mode: Mode;
}

/** The admin of a request's bearer token (a live session), attached by the auth guards as `user`. */
export interface AdminPrincipal {
  userId: number;
  sessionId: number;
  email: string;
  name: string;
  superAdmin: boolean;
  permissions: string[];
  /** The apps the user may see and act on; null = every app (decisions section 15). */
  appIds: number[] | null;
}

/** A request as Joma's middleware and auth guards leave it. */
export interface JomaRequest extends Request {
  id: string;
  rawBody?: Buffer;
  principalApp?: AppPrincipal;
  user?: AdminPrincipal;
  /** Under Fastify: the matched route's template, set just before its handler runs. */
  routeTemplate?: string;
  /** The key this service signs list cursors with (set on arrival; pagination.ts). */
  cursorKey?: Buffer;
  /** Its log line at debug, not info, when it succeeds: a poll that found nothing new (logging.ts). */
  logAtDebug?: boolean;
}

/**
 * The template of the route a request was handed to (`/api/v1/payments/:id`),
 * or undefined when none took it (no match, or refused by a middleware first).
 */
export function routeTemplate(req: JomaRequest): string | undefined {
  if (req.routeTemplate !== undefined) return req.routeTemplate;
  const path = (req.route as { path?: string } | undefined)?.path;
  return path === undefined ? undefined : `${req.baseUrl ?? ''}${path}`;
}
