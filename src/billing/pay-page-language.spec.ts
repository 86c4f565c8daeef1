import { pickLang, takaFor } from './pay-page-language';

describe('pay page language and amounts', () => {
  it('groups taka the Bangladeshi way, in Bengali digits in Bangla', () => {
    expect(takaFor('en', 12345650)).toBe('৳1,23,456.50');
    expect(takaFor('en', 123450)).toBe('৳1,234.50');
    expect(takaFor('en', 99)).toBe('৳0.99');
    expect(takaFor('en', 1000000000)).toBe('৳1,00,00,000.00');
    expect(takaFor('bn', 12345650)).toBe('৳১,২৩,৪৫৬.৫০');
  });

  it('takes ?lang= first, then Accept-Language, else English', () => {
    expect(pickLang('bn', 'en-US')).toBe('bn');
    expect(pickLang(undefined, 'bn-BD,bn;q=0.9,en;q=0.8')).toBe('bn');
    expect(pickLang(undefined, 'en-GB,bn;q=0.5')).toBe('en');
    expect(pickLang('fr', 'fr-FR')).toBe('en');
  });
});
