import { isRedirectAllowed, originOf, parseAllowlist } from './app-settings';

describe('parseAllowlist', () => {
  it('splits on commas, trims and drops empties', () => {
    expect(parseAllowlist(' https://a.example , https://b.example:8443,, ')).toEqual([
      'https://a.example',
      'https://b.example:8443',
    ]);
    expect(parseAllowlist('')).toEqual([]);
    expect(parseAllowlist(' , ')).toEqual([]);
  });
});

describe('originOf', () => {
  it('gives scheme://host[:port] of http(s) URLs only', () => {
    expect(originOf('https://shop.example/path?q=1')).toBe('https://shop.example');
    expect(originOf('http://localhost:3000/x')).toBe('http://localhost:3000');
    expect(originOf('https://shop.example:443/x')).toBe('https://shop.example');
    expect(originOf('ftp://shop.example')).toBeNull();
    expect(originOf('javascript:alert(1)')).toBeNull();
    expect(originOf('not a url')).toBeNull();
  });
});

describe('isRedirectAllowed', () => {
  it('with an empty list allows any https URL and nothing else', () => {
    expect(isRedirectAllowed('https://anywhere.example/ok', '')).toBe(true);
    expect(isRedirectAllowed('http://anywhere.example/ok', '')).toBe(false);
    expect(isRedirectAllowed('javascript:alert(1)', '')).toBe(false);
  });

  it('with a list allows exactly the listed origins', () => {
    const list = 'https://shop.example, http://localhost:3000';
    expect(isRedirectAllowed('https://shop.example/thanks?x=1', list)).toBe(true);
    expect(isRedirectAllowed('http://localhost:3000/done', list)).toBe(true);
    expect(isRedirectAllowed('https://evil.example/thanks', list)).toBe(false);
    expect(isRedirectAllowed('http://shop.example/thanks', list)).toBe(false);
    expect(isRedirectAllowed('https://shop.example:8443/thanks', list)).toBe(false);
    expect(isRedirectAllowed('http://localhost:3001/done', list)).toBe(false);
  });

  it('is not fooled by look-alike hosts or userinfo', () => {
    const list = 'https://shop.example';
    expect(isRedirectAllowed('https://shop.example.evil.example/', list)).toBe(false);
    expect(isRedirectAllowed('https://shop.example@evil.example/', list)).toBe(false);
    expect(isRedirectAllowed('https://evil.example/?https://shop.example', list)).toBe(false);
  });
});
