import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts object keys at every depth, so key order does not change the text', () => {
    const a = { b: 1, a: { d: [1, { z: 1, y: 2 }], c: 'x' } };
    const b = { a: { c: 'x', d: [1, { y: 2, z: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
  });

  it('keeps array order, because it is meaningful', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('tells different values apart', () => {
    expect(canonicalJson({ amount: 100 })).not.toBe(canonicalJson({ amount: '100' }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 1, b: 2 }));
  });

  it('drops undefined properties like JSON does', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });

  it('renders scalars and null as JSON', () => {
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(12.5)).toBe('12.5');
    expect(canonicalJson(true)).toBe('true');
  });

  it('escapes keys', () => {
    expect(canonicalJson({ 'a"b': 1 })).toBe('{"a\\"b":1}');
  });
});
