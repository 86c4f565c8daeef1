import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import {
  addMinor,
  assertCurrency,
  assertSafeMinor,
  bigintTransformer,
  formatTaka,
  MAX_MINOR,
  multiplyMinor,
} from './money';

describe('formatTaka (Bangladeshi lakh grouping)', () => {
  it.each([
    [123450, '৳1,234.50'],
    [0, '৳0.00'],
    [5, '৳0.05'],
    [99, '৳0.99'],
    [100, '৳1.00'],
    [100000, '৳1,000.00'],
    [123456789, '৳12,34,567.89'],
    [12345650, '৳1,23,456.50'],
    [-123450, '-৳1,234.50'],
    [MAX_MINOR, '৳9,00,71,99,25,47,409.91'],
  ])('%d minor units -> %s', (minor, text) => {
    expect(formatTaka(minor)).toBe(text);
  });
});

describe('safe-integer guards', () => {
  it('accepts integers up to 2^53-1 in both directions', () => {
    expect(assertSafeMinor(MAX_MINOR)).toBe(MAX_MINOR);
    expect(assertSafeMinor(-MAX_MINOR)).toBe(-MAX_MINOR);
    expect(assertSafeMinor(0)).toBe(0);
  });

  it.each([MAX_MINOR + 1, 2 ** 60, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses %p as VALIDATION_FAILED naming the field',
    (v) => {
      let caught: unknown;
      try {
        assertSafeMinor(v, 'totalMinor');
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(AppError);
      expect((caught as AppError).code).toBe(ErrorCode.VALIDATION_FAILED);
      expect((caught as AppError).details?.[0].field).toBe('totalMinor');
    },
  );

  it('adds and multiplies exactly, refusing to leave the safe range', () => {
    expect(addMinor(100, 250, 5)).toBe(355);
    expect(addMinor()).toBe(0);
    expect(addMinor(MAX_MINOR - 1, 1)).toBe(MAX_MINOR);
    expect(() => addMinor(MAX_MINOR, 1)).toThrow(AppError);
    expect(multiplyMinor(12345, 3)).toBe(37035);
    expect(() => multiplyMinor(MAX_MINOR, 2)).toThrow(AppError);
  });
});

describe('bigintTransformer', () => {
  it('reads PostgreSQL BIGINT strings as numbers', () => {
    expect(bigintTransformer.from('123450')).toBe(123450);
    expect(bigintTransformer.from('9007199254740991')).toBe(MAX_MINOR);
    expect(bigintTransformer.from('-42')).toBe(-42);
    expect(bigintTransformer.from(null)).toBeNull();
  });

  it('refuses a stored value a double cannot hold exactly', () => {
    expect(() => bigintTransformer.from('9007199254740992')).toThrow(/safe integer/);
    expect(() => bigintTransformer.from('99999999999999999999')).toThrow(/safe integer/);
  });

  it('writes safe integers through and refuses others', () => {
    expect(bigintTransformer.to(500)).toBe(500);
    expect(bigintTransformer.to(null)).toBeNull();
    expect(bigintTransformer.to(undefined)).toBeUndefined();
    expect(() => bigintTransformer.to(MAX_MINOR + 2)).toThrow(AppError);
    expect(() => bigintTransformer.to(10.5)).toThrow(AppError);
  });
});

describe('assertCurrency', () => {
  it('defaults to BDT and accepts BDT', () => {
    expect(assertCurrency(undefined)).toBe('BDT');
    expect(assertCurrency('BDT')).toBe('BDT');
  });

  it.each(['USD', 'bdt', ''])('refuses %p with UNSUPPORTED_CURRENCY', (c) => {
    expect(() => assertCurrency(c)).toThrow(
      expect.objectContaining({ code: ErrorCode.UNSUPPORTED_CURRENCY }),
    );
  });
});
