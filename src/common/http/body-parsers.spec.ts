import { inspectJson, isPublicPage, routedPath } from './body-parsers';

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

describe('routedPath: the path decisions before routing are made on', () => {
  it('decodes percent-encoding, lower-cases and drops a trailing slash, as the routers match', () => {
    expect(routedPath('/PAY/Tok/')).toBe('/pay/tok');
    expect(routedPath('/%70ay/x')).toBe('/pay/x');
    expect(routedPath('/api/v1/auth/login/')).toBe('/api/v1/auth/login');
    expect(routedPath('/')).toBe('/');
  });

  it('leaves an encoded slash encoded, and a malformed path as sent (lower case)', () => {
    expect(routedPath('/pay%2Fx')).toBe('/pay%2fx');
    expect(routedPath('/PAY/%E0%A4%A')).toBe('/pay/%e0%a4%a');
  });

  it('makes every spelling of a public page a public page', () => {
    for (const p of [
      '/pay/t',
      '/PAY/t',
      '/%70ay/t',
      '/Sandbox/checkout/s',
      '/API/v1/Gateways/x/ipn',
    ])
      expect(isPublicPage(p)).toBe(true);
    expect(isPublicPage('/api/v1/payments')).toBe(false);
  });
});
