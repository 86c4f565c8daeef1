import { addDays, dhakaDate, periodBoundary, startOfDhakaDay } from './billing-calendar';

describe('billing calendar (Asia/Dhaka, Stripe month-end rule)', () => {
  it('anchored on 31 Jan, monthly periods end on the last day of short months, then 31 again', () => {
    const ends = [1, 2, 3, 4, 5].map((k) => periodBoundary('2027-01-31', 'MONTH', 1, k));
    expect(ends).toEqual(['2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31', '2027-06-30']);
    expect(periodBoundary('2028-01-31', 'MONTH', 1, 1)).toBe('2028-02-29');
  });

  it('yearly from 29 Feb lands on 28 Feb, then 29 Feb again in a leap year', () => {
    expect(periodBoundary('2028-02-29', 'YEAR', 1, 1)).toBe('2029-02-28');
    expect(periodBoundary('2028-02-29', 'YEAR', 1, 4)).toBe('2032-02-29');
  });

  it('counts interval x intervalCount, across year ends', () => {
    expect(periodBoundary('2026-11-30', 'MONTH', 3, 1)).toBe('2027-02-28');
    expect(periodBoundary('2026-12-28', 'WEEK', 2, 1)).toBe('2027-01-11');
    expect(periodBoundary('2026-12-31', 'DAY', 1, 1)).toBe('2027-01-01');
  });

  it('dates are Dhaka dates: 18:00 UTC is already the next day in Dhaka', () => {
    expect(dhakaDate(Date.parse('2026-11-25T17:59:59Z'))).toBe('2026-11-25');
    expect(dhakaDate(Date.parse('2026-11-25T18:00:00Z'))).toBe('2026-11-26');
    expect(new Date(startOfDhakaDay('2026-11-26')).toISOString()).toBe('2026-11-25T18:00:00.000Z');
    expect(addDays('2026-02-27', 3)).toBe('2026-03-02');
  });
});
