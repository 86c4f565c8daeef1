import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  addDays,
  date,
  dateTime,
  dhakaDay,
  digits,
  num,
  parseQty,
  parseTaka,
  taka,
} from '../../dashboard/src/format';
import { dayFigures, niceTop } from '../../dashboard/src/overview-figures';
import { valueLabel, VALUES_BN } from '../../dashboard/src/values';

/**
 * The dashboard in Bangla throughout (decisions section 20): every number in
 * Bengali digits, times 24-hour (never AM/PM), amounts as on the pay page,
 * statuses and kinds in Bangla; and taka typed with up to two decimals read
 * as exact poisha.
 */
describe('dashboard numbers, times and values in Bangla', () => {
  const LATIN_DIGIT = /[0-9]/;

  it.each([
    ['2026-11-29T10:05:00Z', '29 Nov 2026, 16:05', '২৯ নভে, ২০২৬, ১৬:০৫'],
    ['2026-11-29T18:30:00Z', '30 Nov 2026, 00:30', '৩০ নভে, ২০২৬, ০০:৩০'],
    ['2026-12-31T05:59:00Z', '31 Dec 2026, 11:59', '৩১ ডিসে, ২০২৬, ১১:৫৯'],
  ])('%s is %s in Dhaka, 24-hour, and in Bangla %s', (iso, en, bn) => {
    expect(dateTime(iso, 'en')).toBe(en);
    expect(dateTime(iso, 'bn')).toBe(bn);
    expect(dateTime(iso, 'bn')).not.toMatch(/AM|PM|am|pm/);
    expect(dateTime(iso, 'bn')).not.toMatch(LATIN_DIGIT);
  });

  it('writes calendar days and counts in Bengali digits in Bangla', () => {
    expect(date('2026-12-02', 'en')).toBe('2 Dec 2026');
    expect(date('2026-12-02', 'bn')).toBe('২ ডিসে, ২০২৬');
    expect(num(1_234_567, 'en')).toBe('12,34,567');
    expect(num(1_234_567, 'bn')).toBe('১২,৩৪,৫৬৭');
    expect(num(0, 'bn')).toBe('০');
    expect(num(12n ** 20n, 'bn')).not.toMatch(LATIN_DIGIT);
    expect(digits('INV 42', 'bn')).toBe('INV ৪২');
    expect(digits('INV 42', 'en')).toBe('INV 42');
  });

  it('writes amounts as the pay page does: ৳ first, lakh grouping, Bengali digits in Bangla', () => {
    expect(taka(12_500_000, 'bn')).toBe('৳১,২৫,০০০.০০');
    expect(taka(-110_000n, 'bn')).toBe('-৳১,১০০.০০');
    expect(taka(376_200_00n, 'en')).toBe('৳3,76,200.00');
  });

  it.each([
    ['1250.50', 125_050],
    ['1250.5', 125_050],
    ['1250.', 125_000],
    ['0.07', 7],
    ['০.০৭', 7],
    ['৳ ১,২৫,০০০.৫০', 12_500_050],
    ['9999999999999.99', 999_999_999_999_999],
    // 0.1 + 0.2 in floating point is 0.30000000000000004: read as text, it is 30 poisha.
    ['0.30', 30],
    ['1.15', 115],
    ['4.35', 435],
  ])('reads %s taka as %i poisha exactly', (input, minor) => {
    expect(parseTaka(input)).toBe(minor);
    expect(Number.isSafeInteger(parseTaka(input))).toBe(true);
  });

  it.each(['1.005', '.5', '1,2.3.4', '-1', '1e2', '', '৳', '12345678901234'])(
    'refuses %j (at most two decimals, no sign or exponent)',
    (input) => {
      expect(parseTaka(input)).toBeNull();
    },
  );

  it('reads quantities in either digits, whole and from 1', () => {
    expect(parseQty('3')).toBe(3);
    expect(parseQty('৩')).toBe(3);
    expect(parseQty(' ১২ ')).toBe(12);
    for (const bad of ['0', '1.5', '-2', '', 'x', '1234567']) expect(parseQty(bad)).toBeNull();
  });

  it('finds the Dhaka day of an instant and counts days across months', () => {
    expect(dhakaDay('2026-11-30T17:59:59Z')).toBe('2026-11-30');
    expect(dhakaDay('2026-11-30T18:00:00Z')).toBe('2026-12-01');
    expect(addDays('2026-12-02', -29)).toBe('2026-11-03');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
  });

  it("gives each day's gross, refunded and net as the API answers them, exact past 2^53", () => {
    const figures = dayFigures([
      {
        date: '2026-12-01',
        collectedMinor: 12_500_000,
        refundedMinor: 10_000,
        netMinor: 12_490_000,
        payments: 1,
      },
      {
        date: '2026-12-02',
        collectedMinor: 0,
        refundedMinor: 100_000,
        netMinor: -100_000,
        payments: 0,
      },
      {
        date: '2026-12-03',
        collectedMinor: Number.MAX_SAFE_INTEGER,
        refundedMinor: 0,
        netMinor: Number.MAX_SAFE_INTEGER,
        payments: 2,
      },
    ]);
    expect(figures).toEqual([
      { date: '2026-12-01', gross: 12_500_000n, refunded: 10_000n, net: 12_490_000n },
      { date: '2026-12-02', gross: 0n, refunded: 100_000n, net: -100_000n },
      {
        date: '2026-12-03',
        gross: 9_007_199_254_740_991n,
        refunded: 0n,
        net: 9_007_199_254_740_991n,
      },
    ]);
    // The totals add bigints: past 2^53-1 they are still exact.
    expect(figures.reduce((s, d) => s + d.gross, 1n)).toBe(9_007_199_267_240_992n);
  });

  it('scales the chart to 1, 2 or 5 x 10^k taka', () => {
    expect(niceTop(0n)).toBe(0n);
    expect(niceTop(1n)).toBe(100n);
    expect(niceTop(37_650_000n)).toBe(50_000_000n);
    expect(niceTop(20_000_000n)).toBe(20_000_000n);
  });

  it('has Bangla for every status, kind, channel and mode the API answers', () => {
    const schema = readFileSync(
      join(__dirname, '..', '..', 'clients', 'typescript', 'src', 'generated', 'schema.d.ts'),
      'utf8',
    );
    const values = new Set<string>();
    for (const m of schema.matchAll(
      /\b(?:status|kind|channel|mode|class|interval|riskLevel|ProductStatus|PriceInterval)\??: ((?:"[A-Za-z_]+"(?: \| )?)+)/g,
    ))
      for (const v of m[1].matchAll(/"([A-Za-z_]+)"/g))
        // All lower case: event kinds inside webhook payloads, which no screen shows as a status.
        if (!/^[a-z_]+$/.test(v[1])) values.add(v[1]);
    expect(values).toContain('SUCCEEDED');
    expect(values).toContain('RECEIPT');
    const missing = [...values].filter((v) => !VALUES_BN[v]);
    expect(missing).toEqual([]);
    expect(valueLabel('PAID', 'bn')).toBe('পরিশোধিত');
    expect(valueLabel('PAID', 'en')).toBe('PAID');
    expect(valueLabel(null, 'bn')).toBe('—');
  });
});
