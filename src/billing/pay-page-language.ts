/**
 * The pay page speaks Bangla and English: chosen by `?lang=` (the toggle
 * link), else the choice the customer made before (the `joma_lang` cookie
 * the toggle sets), else the browser's Accept-Language, else English.
 * Amounts are taka with Bangladeshi lakh grouping (৳1,23,456.50), in Bengali
 * digits in Bangla.
 */
import { formatTaka } from '../common/money/money';

export type Lang = 'en' | 'bn';

const isLang = (value: unknown): value is Lang => value === 'bn' || value === 'en';

/** The customer's language choice, kept in the browser under this cookie. */
export const LANG_COOKIE = 'joma_lang';
const KEPT_CHOICE = /(?:^|;\s*)joma_lang=(bn|en)(?:;|$)/;

export function pickLang(
  query: unknown,
  cookieHeader: string | undefined,
  acceptLanguage: string | undefined,
): Lang {
  if (isLang(query)) return query;
  const kept = KEPT_CHOICE.exec(cookieHeader ?? '');
  if (kept) return kept[1] as Lang;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.trim().split(';')[0].toLowerCase();
    if (tag.startsWith('bn')) return 'bn';
    if (tag.startsWith('en')) return 'en';
  }
  return 'en';
}

/**
 * The header that keeps a choice made with `?lang=` for a year, so the page
 * answers in it after the gateway's round trip (whose return carries no
 * `?lang=`), on the receipt and on later visits. Scoped to /pay, sent on
 * top-level navigations only (SameSite=Lax: the redirect back from a
 * gateway is one), never readable by scripts; Secure when the pages are
 * served over https. No header when nothing was chosen.
 */
export function langChoiceHeaders(query: unknown, secure: boolean): Record<string, string> {
  if (!isLang(query)) return {};
  return {
    'Set-Cookie': `${LANG_COOKIE}=${query}; Path=/pay; Max-Age=31536000; SameSite=Lax; HttpOnly${secure ? '; Secure' : ''}`,
  };
}

const BENGALI_DIGITS = '০১২৩৪৫৬৭৮৯';

export function localDigits(lang: Lang, s: string): string {
  return lang === 'bn' ? s.replace(/[0-9]/g, (d) => BENGALI_DIGITS[Number(d)]) : s;
}

/** `৳1,23,456.50` (en) or `৳১,২৩,৪৫৬.৫০` (bn) from 12345650 paisa. */
export function takaFor(lang: Lang, minor: number): string {
  return localDigits(lang, formatTaka(minor));
}

export const GATEWAY_LABELS: Record<string, Record<Lang, string>> = {
  sandbox: { en: 'Sandbox (test)', bn: 'স্যান্ডবক্স (পরীক্ষা)' },
  sslcommerz: { en: 'SSLCommerz (cards, mobile banking)', bn: 'SSLCommerz (কার্ড, মোবাইল ব্যাংকিং)' },
  bkash: { en: 'bKash', bn: 'বিকাশ' },
};

export const WORDS = {
  en: {
    invoice: 'Invoice',
    for: 'for',
    issued: 'Issued',
    due: 'Due',
    testMode: 'TEST MODE',
    item: 'Item',
    qty: 'Qty',
    unit: 'Unit',
    amount: 'Amount',
    total: 'Total',
    paid: 'Paid',
    amountDue: 'Amount due',
    pay: 'Pay',
    payWith: 'with',
    paidMessage: 'This invoice is paid. Thank you!',
    voidMessage: 'This invoice has been voided and cannot be paid.',
    unavailable: (company: string) =>
      `Online payment is not available for this invoice. Please contact ${company} to pay it another way.`,
    otherLanguage: 'বাংলা',
    status: {
      ISSUED: 'Issued',
      PAID: 'Paid',
      PARTIALLY_PAID: 'Partially paid',
      VOID: 'Void',
    } as Record<string, string>,
    attempt: {
      FAILED: 'Your last payment attempt failed. No money was taken. You can try again.',
      CANCELLED: 'Your last payment attempt was cancelled. You can try again.',
      EXPIRED: 'Your last checkout expired before it was completed. You can try again.',
    } as Record<string, string>,
    subscription: 'Subscription',
    paymentReceived: 'Payment received',
    paidOn: 'Paid on',
    method: 'Method',
    txnId: 'Transaction ID',
    viewReceipt: 'View or print your receipt',
    returnTo: (app: string) => `Return to ${app}`,
    receipt: 'Payment receipt',
    receiptTitle: 'Receipt',
    invoiceTotal: 'Invoice total',
    testModeLong: 'TEST MODE (no real money moved)',
    printHint: "Use your browser's Print command to print this receipt or save it as PDF.",
    backToInvoice: 'Back to the invoice',
    dhakaTime: 'Dhaka time',
    noReceipt: ['No receipt yet', 'Nothing has been paid on this invoice yet.'],
  },
  bn: {
    invoice: 'ইনভয়েস',
    for: '—',
    issued: 'ইস্যুর তারিখ',
    due: 'পরিশোধের শেষ তারিখ',
    testMode: 'টেস্ট মোড',
    item: 'বিবরণ',
    qty: 'পরিমাণ',
    unit: 'একক মূল্য',
    amount: 'মূল্য',
    total: 'মোট',
    paid: 'পরিশোধিত',
    amountDue: 'পরিশোধযোগ্য',
    pay: 'পরিশোধ করুন',
    payWith: '—',
    paidMessage: 'এই ইনভয়েস পরিশোধ হয়েছে। ধন্যবাদ!',
    voidMessage: 'এই ইনভয়েস বাতিল করা হয়েছে, পরিশোধ করা যাবে না।',
    unavailable: (company: string) =>
      `এই ইনভয়েস অনলাইনে পরিশোধ করা যাচ্ছে না। অন্যভাবে পরিশোধ করতে ${company}-এর সাথে যোগাযোগ করুন।`,
    otherLanguage: 'English',
    status: {
      ISSUED: 'অপরিশোধিত',
      PAID: 'পরিশোধিত',
      PARTIALLY_PAID: 'আংশিক পরিশোধিত',
      VOID: 'বাতিল',
    } as Record<string, string>,
    attempt: {
      FAILED: 'আপনার আগের চেষ্টাটি সফল হয়নি। কোনো টাকা কাটা হয়নি। আবার চেষ্টা করুন।',
      CANCELLED: 'আপনার আগের চেষ্টাটি বাতিল হয়েছে। আবার চেষ্টা করুন।',
      EXPIRED: 'আপনার আগের চেকআউটের সময় শেষ হয়ে গেছে। আবার চেষ্টা করুন।',
    } as Record<string, string>,
    subscription: 'সাবস্ক্রিপশন',
    paymentReceived: 'পেমেন্ট পাওয়া গেছে',
    paidOn: 'পরিশোধের সময়',
    method: 'মাধ্যম',
    txnId: 'ট্রানজ্যাকশন আইডি',
    viewReceipt: 'রসিদ দেখুন বা প্রিন্ট করুন',
    returnTo: (app: string) => `${app}-এ ফিরে যান`,
    receipt: 'পেমেন্টের রসিদ',
    receiptTitle: 'রসিদ',
    invoiceTotal: 'ইনভয়েসের মোট',
    testModeLong: 'টেস্ট মোড (কোনো আসল টাকা লেনদেন হয়নি)',
    printHint: 'রসিদটি প্রিন্ট করতে বা PDF হিসেবে রাখতে ব্রাউজারের Print ব্যবহার করুন।',
    backToInvoice: 'ইনভয়েসে ফিরে যান',
    dhakaTime: 'ঢাকা সময়',
    noReceipt: ['এখনও কোনো রসিদ নেই', 'এই ইনভয়েসে এখনও কিছু পরিশোধ করা হয়নি।'],
  },
} as const;
