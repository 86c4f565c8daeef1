import { inspectJson } from './body-parsers';

const nestedDeeperThan = (value: unknown, max: number) => inspectJson(value, max).tooDeep;

describe('nestedDeeperThan', () => {
  const nest = (levels: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };

  it('counts objects and arrays, the outermost being level 1', () => {
    expect(nestedDeeperThan(nest(3), 3)).toBe(false);
    expect(nestedDeeperThan(nest(4), 3)).toBe(true);
    expect(nestedDeeperThan({ a: 1, b: [1, 2], c: { d: null } }, 2)).toBe(false);
    expect(nestedDeeperThan({ a: 1, b: [1, [2]] }, 2)).toBe(true);
  });

  it('treats scalars and null as no nesting', () => {
    expect(nestedDeeperThan(null, 0)).toBe(false);
    expect(nestedDeeperThan('x', 0)).toBe(false);
    expect(nestedDeeperThan(undefined, 0)).toBe(false);
  });

  it('walks a nesting far deeper than the call stack could, without recursion', () => {
    expect(nestedDeeperThan(nest(200_000), 32)).toBe(true);
  });
});
