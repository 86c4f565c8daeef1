/**
 * Calendar dates in Asia/Dhaka (UTC+06:00 all year: Bangladesh has no
 * daylight saving time). A date is a 'YYYY-MM-DD' string. Every calendar
 * date Joma shows or computes (an invoice's issue and due dates, a
 * subscription's periods, a reconciliation period) is a Dhaka date
 * (decisions sections 5 and 7).
 */
const DHAKA_OFFSET_MS = 6 * 3600_000;
export const DAY_MS = 86_400_000;

/** The Dhaka calendar date of an instant. */
export function dhakaDate(ms: number): string {
  return new Date(ms + DHAKA_OFFSET_MS).toISOString().slice(0, 10);
}

/** Midnight in Dhaka at the start of `date`, as epoch milliseconds. */
export function startOfDhakaDay(date: string): number {
  return Date.parse(`${date}T00:00:00.000Z`) - DHAKA_OFFSET_MS;
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);
}
