import { langChoiceHeaders, langToggle, pickLang, takaFor } from './language';

describe('customer-facing pages: language and amounts', () => {
  it('groups taka the Bangladeshi way, in Bengali digits in Bangla', () => {
    expect(takaFor('en', 12345650)).toBe('৳1,23,456.50');
    expect(takaFor('en', 123450)).toBe('৳1,234.50');
    expect(takaFor('en', 99)).toBe('৳0.99');
    expect(takaFor('en', 1000000000)).toBe('৳1,00,00,000.00');
    expect(takaFor('bn', 12345650)).toBe('৳১,২৩,৪৫৬.৫০');
  });

  it('takes ?lang= first, then the choice kept in the cookie, then Accept-Language, else English', () => {
    expect(pickLang('bn', 'joma_lang=en', 'en-US')).toBe('bn');
    expect(pickLang(undefined, undefined, 'bn-BD,bn;q=0.9,en;q=0.8')).toBe('bn');
    expect(pickLang(undefined, undefined, 'en-GB,bn;q=0.5')).toBe('en');
    expect(pickLang('fr', undefined, 'fr-FR')).toBe('en');
    expect(pickLang(undefined, 'joma_lang=en', 'bn-BD,bn;q=0.9')).toBe('en');
    expect(pickLang(undefined, 'a=1; joma_lang=bn; b=2', 'en-US')).toBe('bn');
    // Only our cookie, only our two values.
    expect(pickLang(undefined, 'not_joma_lang=en', 'bn')).toBe('bn');
    expect(pickLang(undefined, 'joma_lang=fr', 'bn')).toBe('bn');
    expect(pickLang(undefined, 'joma_lang=english', 'bn')).toBe('bn');
  });

  it('keeps a choice made with ?lang= in a cookie scoped to /pay (Secure over https), and nothing else', () => {
    const https = { publicBaseUrl: 'https://pay.example.com' };
    expect(langChoiceHeaders('en', { publicBaseUrl: 'http://localhost:3000' })).toEqual({
      'Set-Cookie': 'joma_lang=en; Path=/pay; Max-Age=31536000; SameSite=Lax; HttpOnly',
    });
    expect(langChoiceHeaders('bn', { publicBaseUrl: 'https://pay.example.com' })).toEqual({
      'Set-Cookie': 'joma_lang=bn; Path=/pay; Max-Age=31536000; SameSite=Lax; HttpOnly; Secure',
    });
    expect(langChoiceHeaders(undefined, https)).toEqual({});
    expect(langChoiceHeaders('fr', https)).toEqual({});
    expect(langChoiceHeaders(['en', 'bn'], https)).toEqual({});
  });

  it('links to the same page in the other language, named in that language', () => {
    expect(langToggle('/pay/tok', 'en').value).toBe(
      '<p class="lang"><a href="/pay/tok?lang=bn" hreflang="bn" lang="bn" data-testid="lang-toggle">বাংলা</a></p>',
    );
    expect(langToggle('/pay/tok/receipt', 'bn', 'lang no-print').value).toContain(
      'href="/pay/tok/receipt?lang=en" hreflang="en" lang="en" data-testid="lang-toggle">English</a>',
    );
  });
});
