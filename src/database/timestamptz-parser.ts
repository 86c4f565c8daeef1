/**
 * TIMESTAMPTZ values as Joma's sessions send them (`timezone=UTC`):
 * `YYYY-MM-DD HH:MM:SS[.ffffff]+00`. pg's own parser (postgres-date) runs
 * three regular expressions per value, and every row Joma reads carries
 * several timestamps: ~360 ns a value against ~95 here, a few
 * microseconds of every read (bench/README.md, "Timestamp parsing"). Anything
 * else (another zone, BC, infinity, a year outside 1000-9999) goes to
 * `fallback`, the parser pg had before. Sub-millisecond digits are dropped,
 * as pg's parser drops them.
 */
export function timestamptzParser(fallback: (value: string) => unknown) {
  return (value: string): unknown => {
    const n = value.length;
    // 22 = `YYYY-MM-DD HH:MM:SS+00`; up to six fraction digits after a dot.
    if (
      n < 22 ||
      n > 29 ||
      n === 23 ||
      !endsInUtc(value, n) ||
      !digitsAt(value, DIGIT_POSITIONS) ||
      value.charCodeAt(4) !== DASH ||
      value.charCodeAt(7) !== DASH ||
      value.charCodeAt(10) !== SPACE ||
      value.charCodeAt(13) !== COLON ||
      value.charCodeAt(16) !== COLON ||
      value.charCodeAt(0) === ZERO
    )
      return fallback(value);
    let ms = 0;
    if (n > 22) {
      if (value.charCodeAt(19) !== DOT) return fallback(value);
      for (let i = 20, scale = 100; i < n - 3; i++, scale /= 10) {
        const d = value.charCodeAt(i) - ZERO;
        if (d < 0 || d > 9) return fallback(value);
        if (scale >= 1) ms += d * scale;
      }
    }
    return new Date(
      Date.UTC(
        two(value, 0) * 100 + two(value, 2),
        two(value, 5) - 1,
        two(value, 8),
        two(value, 11),
        two(value, 14),
        two(value, 17),
        ms,
      ),
    );
  };
}

const ZERO = 48;
const DASH = 45;
const SPACE = 32;
const COLON = 58;
const DOT = 46;
const PLUS = 43;
/** Where `YYYY-MM-DD HH:MM:SS` has its digits. */
const DIGIT_POSITIONS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];

function two(s: string, at: number): number {
  return (s.charCodeAt(at) - ZERO) * 10 + s.charCodeAt(at + 1) - ZERO;
}

function endsInUtc(s: string, n: number): boolean {
  return (
    s.charCodeAt(n - 3) === PLUS && s.charCodeAt(n - 2) === ZERO && s.charCodeAt(n - 1) === ZERO
  );
}

function digitsAt(s: string, positions: number[]): boolean {
  for (const i of positions) {
    const c = s.charCodeAt(i);
    if (c < ZERO || c > ZERO + 9) return false;
  }
  return true;
}
