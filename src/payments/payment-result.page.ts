import { html, notFoundPage, page } from '../common/html/html';
import { INVALID_LINK, type Lang, langToggle, takaFor } from '../common/html/language';
import type { Payment } from './payment.entity';

const WORDS = {
  en: {
    title: 'Payment status',
    payment: 'Payment',
    reference: 'Reference',
    status: {
      SUCCEEDED: 'Paid',
      FAILED: 'Failed',
      CANCELLED: 'Cancelled',
      EXPIRED: 'Expired',
      PENDING: 'Pending',
    } as Record<string, string>,
    message: {
      SUCCEEDED: 'Payment received. Thank you!',
      FAILED: 'The payment failed. No money was taken.',
      CANCELLED: 'The payment was cancelled.',
      EXPIRED: 'This checkout expired.',
      PENDING:
        'We are still waiting for the payment to be confirmed. Please do not pay again yet: this page checks by itself and will show the result.',
    } as Record<string, string>,
    notFound: ['Payment not found', INVALID_LINK.en],
    to: (merchant: string) => `To ${merchant}`,
    back: (merchant: string) => `Back to ${merchant}`,
    close: (merchant: string) => `You can close this page and return to ${merchant}.`,
  },
  bn: {
    title: 'পেমেন্টের অবস্থা',
    payment: 'পেমেন্ট',
    reference: 'রেফারেন্স',
    status: {
      SUCCEEDED: 'পরিশোধিত',
      FAILED: 'ব্যর্থ',
      CANCELLED: 'বাতিল',
      EXPIRED: 'মেয়াদোত্তীর্ণ',
      PENDING: 'অপেক্ষমাণ',
    } as Record<string, string>,
    message: {
      SUCCEEDED: 'পেমেন্ট পাওয়া গেছে। ধন্যবাদ!',
      FAILED: 'পেমেন্ট সফল হয়নি। কোনো টাকা কাটা হয়নি।',
      CANCELLED: 'পেমেন্ট বাতিল করা হয়েছে।',
      EXPIRED: 'এই চেকআউটের সময় শেষ হয়ে গেছে।',
      PENDING:
        'পেমেন্ট নিশ্চিত হওয়ার অপেক্ষায় আছি। এখনই আবার পরিশোধ করবেন না: এই পাতাটি নিজেই দেখে ফলাফল জানাবে।',
    } as Record<string, string>,
    notFound: ['পেমেন্ট পাওয়া যায়নি', INVALID_LINK.bn],
    to: (merchant: string) => `প্রাপক: ${merchant}`,
    back: (merchant: string) => `${merchant}-এ ফিরে যান`,
    close: (merchant: string) => `এই পাতাটি বন্ধ করে ${merchant}-এ ফিরে যেতে পারেন।`,
  },
} as const;

/** Who the payer paid, and where their site is (null when the app names none). */
export interface Merchant {
  name: string;
  siteUrl: string | null;
}

/**
 * Where a customer waits while a payment is PENDING after the gateway, and
 * sees how it ended when it has no URL to go on to; in Bangla or English by
 * the same rule as the pay page (common/html/language.ts). It names the
 * merchant and offers the way back to the merchant's site when one is known.
 */
export function paymentResultPage(p: Payment, merchant: Merchant, lang: Lang = 'en'): string {
  const w = WORDS[lang];
  const way = merchant.siteUrl
    ? html`<div class="actions"><a class="button" href="${merchant.siteUrl}" data-testid="back-to-merchant">${w.back(merchant.name)}</a></div>`
    : html`<p class="muted" data-testid="back-to-merchant">${w.close(merchant.name)}</p>`;
  return page(
    w.title,
    '#0f766e',
    html`<header><h1>${w.payment} <span data-testid="payment-amount">${takaFor(lang, p.amountMinor)}</span></h1></header>
<p data-testid="merchant">${w.to(merchant.name)}</p>
${langToggle(`/pay/result/${p.reference}`, lang)}
<p><span class="status ${p.status.toLowerCase()}" data-testid="payment-status">${w.status[p.status] ?? p.status}</span></p>
<p>${w.message[p.status] ?? ''}</p>
<p class="muted">${w.reference} ${p.reference}</p>
${way}`,
    lang,
  );
}

/** No such payment (an unknown reference, or a gateway return that matches none). */
export function paymentNotFoundPage(lang: Lang = 'en'): string {
  return notFoundPage(WORDS[lang].notFound, lang);
}
