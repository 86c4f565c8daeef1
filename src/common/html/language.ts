/**
 * The customer-facing pages (pay page, receipt, payment result) speak Bangla
 * and English: chosen by `?lang=` (each page's toggle link), else the choice
 * the customer made before (the `joma_lang` cookie the toggle sets), else
 * the browser's Accept-Language, else the invoice's language (pay page and
 * receipt), else English. Amounts are taka with
 * Bangladeshi lakh grouping (৳1,23,456.50), in Bengali digits in Bangla.
 */
import { formatTaka } from '../money/money';
import { html, type SafeHtml } from './html';

export type Lang = 'en' | 'bn';

const isLang = (value: unknown): value is Lang => value === 'bn' || value === 'en';

/** The customer's language choice, kept in the browser under this cookie. */
const LANG_COOKIE = 'joma_lang';
const KEPT_CHOICE = new RegExp(`(?:^|;\\s*)${LANG_COOKIE}=(bn|en)(?:;|$)`);

/**
 * `fallback` speaks when nothing was chosen: the pay page and receipt pass
 * the invoice's language (its `customerLanguage`, else the app's
 * `defaultLanguage`); pages without an invoice, English.
 */
export function pickLang(
  query: unknown,
  cookieHeader: string | undefined,
  acceptLanguage: string | undefined,
  fallback: Lang = 'en',
): Lang {
  if (isLang(query)) return query;
  const kept = KEPT_CHOICE.exec(cookieHeader ?? '');
  if (kept) return kept[1] as Lang;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.trim().split(';')[0].toLowerCase();
    if (tag.startsWith('bn')) return 'bn';
    if (tag.startsWith('en')) return 'en';
  }
  return fallback;
}

/**
 * The header that keeps a choice made with `?lang=` for a year, so the page
 * answers in it after the gateway's round trip (whose return carries no
 * `?lang=`), on the receipt and on later visits. Scoped to /pay, sent on
 * top-level navigations only (SameSite=Lax: the redirect back from a
 * gateway is one), never readable by scripts; Secure when the pages are
 * served over https. No header when nothing was chosen.
 */
export function langChoiceHeaders(
  query: unknown,
  served: { publicBaseUrl: string },
): Record<string, string> {
  if (!isLang(query)) return {};
  const secure = served.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  return {
    'Set-Cookie': `${LANG_COOKIE}=${query}; Path=/pay; Max-Age=31536000; SameSite=Lax; HttpOnly${secure}`,
  };
}

/** What every hosted page's 404 says of the link, whichever page it was meant for. */
export const INVALID_LINK: Record<Lang, string> = {
  en: 'This payment link is not valid.',
  bn: 'এই পেমেন্ট লিংকটি সঠিক নয়।',
};

const LANG_NAMES: Record<Lang, string> = { en: 'English', bn: 'বাংলা' };

/** The link to the page at `path` in the other language, named in that language. */
export function langToggle(path: string, lang: Lang, className = 'lang'): SafeHtml {
  const other: Lang = lang === 'bn' ? 'en' : 'bn';
  return html`<p class="${className}"><a href="${path}?lang=${other}" hreflang="${other}" lang="${other}" data-testid="lang-toggle">${LANG_NAMES[other]}</a></p>`;
}

const BENGALI_DIGITS = '০১২৩৪৫৬৭৮৯';

export function localDigits(lang: Lang, s: string): string {
  return lang === 'bn' ? s.replace(/[0-9]/g, (d) => BENGALI_DIGITS[Number(d)]) : s;
}

/** `৳1,23,456.50` (en) or `৳১,২৩,৪৫৬.৫০` (bn) from 12345650 paisa. */
export function takaFor(lang: Lang, minor: number): string {
  return localDigits(lang, formatTaka(minor));
}
