/**
 * Customer phone numbers. Bangladeshi mobile numbers are accepted as
 * 01XXXXXXXXX, 8801XXXXXXXXX or +8801XXXXXXXXX (spaces and dashes ignored)
 * and stored as +8801XXXXXXXXX; any other number only in E.164 (+ and 8 to
 * 15 digits). Bengali digits (০-৯), as a Bangla keyboard types them, count
 * as their ASCII digits. Anything else: null (the caller answers 400 with
 * PHONE_FORMS).
 */
export const PHONE_FORMS =
  'a Bangladeshi mobile number (01XXXXXXXXX, 8801XXXXXXXXX or +8801XXXXXXXXX) or an international number in E.164 (+ and 8 to 15 digits)';

export function normalizePhone(raw: string): string | null {
  const compact = raw
    .replace(/[\s-]/g, '')
    .replace(/[\u09E6-\u09EF]/g, (d) => String(d.charCodeAt(0) - 0x09e6));
  const bd = /^(?:\+?880|0)?(1[3-9]\d{8})$/.exec(compact);
  if (bd && (compact.startsWith('01') || /^\+?8801/.test(compact))) return `+880${bd[1]}`;
  if (/^\+[1-9]\d{7,14}$/.test(compact) && !compact.startsWith('+880')) return compact;
  return null;
}
