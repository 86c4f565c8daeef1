import { types } from 'pg';

import { timestamptzParser } from './timestamptz-parser';

// pg's own TIMESTAMPTZ parser (this spec does not load data-source-options, which replaces it).
const pgParser = types.getTypeParser(1184) as (value: string) => unknown;

describe('timestamptzParser', () => {
  const fallback = jest.fn(pgParser);
  const parse = timestamptzParser(fallback);
  beforeEach(() => fallback.mockClear());

  const time = (v: unknown) => (v instanceof Date ? v.getTime() : v);

  it.each([
    ['2026-11-27 07:26:34+00', Date.UTC(2026, 10, 27, 7, 26, 34, 0)],
    ['2026-11-27 07:26:34.3+00', Date.UTC(2026, 10, 27, 7, 26, 34, 300)],
    ['2026-11-27 07:26:34.32+00', Date.UTC(2026, 10, 27, 7, 26, 34, 320)],
    ['2026-11-27 07:26:34.327+00', Date.UTC(2026, 10, 27, 7, 26, 34, 327)],
    ['2026-11-27 07:26:34.327999+00', Date.UTC(2026, 10, 27, 7, 26, 34, 327)],
    ['1999-12-31 23:59:59.999999+00', Date.UTC(1999, 11, 31, 23, 59, 59, 999)],
    ['2024-02-29 00:00:00.000001+00', Date.UTC(2024, 1, 29, 0, 0, 0, 0)],
  ])('reads %s in UTC itself, as pg would', (text, ms) => {
    const got = parse(text);
    expect(got).toBeInstanceOf(Date);
    expect(time(got)).toBe(ms);
    expect(time(got)).toBe(time(pgParser(text)));
    expect(fallback).not.toHaveBeenCalled();
  });

  it.each([
    '2026-11-27 13:26:34.327+06',
    '2026-11-27 07:26:34-00:30',
    'infinity',
    '-infinity',
    '0099-01-01 00:00:00+00',
    '2000-01-01 00:00:00+00 BC',
    '12026-01-01 00:00:00+00',
    '2026-11-27T07:26:34+00',
    '2026-11-27 07:26:34.+00',
    '2026-11-27 07:26:34.3x5+00',
    '2026-1a-27 07:26:34+00',
  ])('hands %s to pg own parser', (text) => {
    expect(time(parse(text))).toEqual(time(pgParser(text)));
    expect(fallback).toHaveBeenCalledWith(text);
  });

  it('agrees with pg on 20,000 generated timestamps', () => {
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    for (let i = 0; i < 20_000; i++) {
      const digits = rand(7);
      const fraction = digits === 0 ? '' : `.${pad(rand(10 ** digits), digits)}`;
      const text =
        `${1000 + rand(9000)}-${pad(1 + rand(12), 2)}-${pad(1 + rand(28), 2)} ` +
        `${pad(rand(24), 2)}:${pad(rand(60), 2)}:${pad(rand(60), 2)}${fraction}+00`;
      expect([text, time(parse(text))]).toEqual([text, time(pgParser(text))]);
    }
    expect(fallback).not.toHaveBeenCalled();
  });
});
