import type { components } from '../../clients/typescript/src/generated/schema';

export type Session = components['schemas']['SessionDto'];

const KEY = 'joma.dashboard.session';

/**
 * The signed-in admin's session: in memory and in sessionStorage (this tab
 * only, gone when it closes), never in a cookie, so no request can be
 * forged from another site (decisions section 15).
 */
export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Session;
    return Date.parse(s.expiresAt) > Date.now() ? s : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
}

export function can(s: Session, permission: string): boolean {
  return s.superAdmin || s.permissions.includes(permission as never);
}
