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
}

export interface JomaRequest extends Request {
  id: string;
  rawBody?: Buffer;
  principalApp?: AppPrincipal;
  user?: AdminPrincipal;
}
