import type { Request } from 'express';

/** What the auth guards attach to a request. */
export type Mode = 'TEST' | 'LIVE';

export interface AppPrincipal {
  appId: number;
  appName: string;
  mode: Mode;
}

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

export interface JomaRequest extends Request {
  id: string;
  rawBody?: Buffer;
  principalApp?: AppPrincipal;
  user?: AdminPrincipal;
  /** Under Fastify: the matched route's template, set just before its handler runs. */
  routeTemplate?: string;
  /** The key this service signs list cursors with (set on arrival; pagination.ts). */
  cursorKey?: Buffer;
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
