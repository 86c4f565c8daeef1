import { findNulCharacter, findUnstorableInput, MAX_INPUT_DEPTH } from './validation';

describe('findNulCharacter', () => {
  it('finds U+0000 in nested strings and keys, giving the field path', () => {
    expect(findNulCharacter({ a: 'ok', b: { c: ['x', 'y\u0000'] } })).toBe('b.c.1');
    expect(findNulCharacter({ ['k\u0000']: 1 })).toBe('k\u0000');
    expect(findNulCharacter('a\u0000', 'id')).toBe('id');
  });

  it('returns null for clean values', () => {
    expect(findNulCharacter({ a: 'ট্যাকা', b: [1, null, true], c: { d: '\\u0000' } })).toBeNull();
    expect(findNulCharacter(undefined)).toBeNull();
    expect(findNulCharacter(42)).toBeNull();
  });
});

describe('findUnstorableInput', () => {
  it('finds lone surrogates in values and keys, but accepts paired ones (emoji)', () => {
    expect(findUnstorableInput({ a: '😀 ok', b: ['x', 'bad\uD800'] })).toEqual({
      path: 'b.1',
      problem: 'must be valid Unicode (no lone surrogates)',
    });
    expect(findUnstorableInput({ ['k\uDC00']: 1 })?.path).toBe('k\uDC00');
    expect(findUnstorableInput({ a: '😀', b: 'টাকা' })).toBeNull();
  });

  it('refuses nesting deeper than the limit instead of skipping it', () => {
    let deep: Record<string, unknown> = { leaf: 'x\u0000' };
    for (let i = 0; i < MAX_INPUT_DEPTH + 2; i++) deep = { d: deep };
    expect(findUnstorableInput(deep)?.problem).toMatch(/nest deeper/);
    let ok: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 10; i++) ok = { d: ok };
    expect(findUnstorableInput(ok)).toBeNull();
  });
});
