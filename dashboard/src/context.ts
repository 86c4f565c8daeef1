import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

import type { JomaClient } from '../../clients/typescript/src/client';
import type { Mode } from './api';
import type { Lang } from './i18n';
import type { Session } from './session';

/** What every screen works with: the signed-in admin, the app and mode picked, the language. */
export interface Ctx {
  session: Session;
  lang: Lang;
  t: (text: string) => string;
  appId: number;
  appName: string;
  mode: Mode;
  /** App routes, acting on the picked app and mode. */
  app: JomaClient;
  /** Admin routes. */
  admin: JomaClient;
  can: (permission: string) => boolean;
  go: (path: string) => void;
  /** Reloads the App picker's list (an app was created or renamed), optionally picking one. */
  reloadApps: (pick?: number) => Promise<void>;
}

export const DashboardContext = createContext<Ctx | null>(null);

export function useCtx(): Ctx {
  const ctx = useContext(DashboardContext);
  if (!ctx) throw new Error('useCtx outside the dashboard');
  return ctx;
}
