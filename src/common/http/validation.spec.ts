import { findLoneSurrogate, findNulCharacter } from './validation';

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

describe('findLoneSurrogate', () => {
  it('finds an unpaired high or low surrogate in values and keys', () => {
    expect(findLoneSurrogate({ a: 'ok', b: { c: ['x', 'y\ud800'] } })).toBe('b.c.1');
    expect(findLoneSurrogate({ a: '\udc00z' })).toBe('a');
    expect(findLoneSurrogate({ ['k\udfff']: 1 })).toBe('k\udfff');
    expect(findLoneSurrogate('\ud83d', 'id')).toBe('id');
  });

  it('accepts surrogate pairs (emoji) and other text', () => {
    expect(findLoneSurrogate({ a: '😀📚', b: 'ট্যাকা', c: ['\ud83d\ude00'] })).toBeNull();
    expect(findLoneSurrogate(42)).toBeNull();
  });
});
