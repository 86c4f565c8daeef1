import { bnDigits, parseTaka, taka } from '../../dashboard/src/format';

/** The dashboard's money as people read and type it (decisions section 15). */
describe('dashboard money formatting', () => {
  it.each([
    [0, '৳0.00'],
    [5, '৳0.05'],
    [100, '৳1.00'],
    [12_345_678, '৳1,23,456.78'],
    [12_500_000, '৳1,25,000.00'],
    [100_000_000_000, '৳1,00,00,00,000.00'],
    [-1_000_050, '-৳10,000.50'],
    [Number.MAX_SAFE_INTEGER, '৳9,00,71,99,25,47,409.91'],
  ])('%i poisha is %s (lakh and crore grouping, exact up to 2^53 - 1)', (minor, text) => {
    expect(taka(minor, 'en')).toBe(text);
  });

  it('takes a bigint above 2^53 - 1 (a sum the dashboard adds up) exactly', () => {
    expect(taka(2n ** 53n + 1n, 'en')).toBe('৳9,00,71,99,25,47,409.93');
    expect(taka(-(10n ** 20n) - 1n, 'en')).toBe('-৳10,00,00,00,00,00,00,00,000.01');
    expect(() => taka(12.5, 'en')).toThrow(RangeError);
  });

  it('writes Bangla digits in Bangla', () => {
    expect(taka(12_345_678, 'bn')).toBe('৳১,২৩,৪৫৬.৭৮');
    expect(bnDigits('2026')).toBe('২০২৬');
  });

  it.each([
    ['1250.50', 125_050],
    ['1,250.5', 125_050],
    ['৳ 1,25,000', 12_500_000],
    ['১২৫০.৫০', 125_050],
    ['0.01', 1],
    ['100', 10_000],
  ])('reads %s as %i poisha', (input, minor) => {
    expect(parseTaka(input)).toBe(minor);
  });

  it.each(['', 'abc', '1.234', '-5', '1e3', '12345678901234'])('refuses %s', (input) => {
    expect(parseTaka(input)).toBeNull();
  });
});
