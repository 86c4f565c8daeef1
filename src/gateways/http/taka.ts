/** Gateways speak decimal taka ("1500.50"); Joma integer paisa. Exact, no floats. */
export function toTaka(minor: number): string {
  const whole = Math.floor(minor / 100);
  return `${whole}.${String(minor % 100).padStart(2, '0')}`;
}

/** "1500", "1500.5" or "1500.50" -> 150050; anything else null. */
export function fromTaka(value: unknown): number | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(String(value).trim());
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
}
