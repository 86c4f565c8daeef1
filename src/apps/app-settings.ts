/** Defaults and bounds of app settings (docs/api.md, Apps). */
export const SETTINGS_BOUNDS = {
  minAmountMinor: { default: 1000, min: 100 },
  maxAmountMinor: { default: 50_000_000, max: 1_000_000_000 },
  paymentExpiryMinutes: { default: 30, min: 1, max: 1440 },
  refundApprovalThresholdMinor: { default: 1_000_000, min: 0 },
} as const;

/** Parses `returnUrlAllowlist` into origins (scheme://host[:port]). */
export function parseAllowlist(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
    return u.origin;
  } catch {
    return null;
  }
}

/**
 * Whether a success/fail/cancel URL may be used: its origin is on the list,
 * or the list is empty and the URL is https.
 */
export function isRedirectAllowed(url: string, allowlist: string): boolean {
  const origin = originOf(url);
  if (!origin) return false;
  const allowed = parseAllowlist(allowlist);
  if (allowed.length === 0) return origin.startsWith('https://');
  return allowed.some((a) => originOf(a) === origin);
}
