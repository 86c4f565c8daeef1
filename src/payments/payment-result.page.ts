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
    refundingStatus: 'Being refunded',
    refundedStatus: 'Refunded',
    notCounted: (amount: string, done: boolean) =>
      `We received your payment of ${amount}, but it could not be counted, so it ${done ? 'has been' : 'is being'} refunded to you in full.`,
    excess: (amount: string, done: boolean) =>
      `Payment received. Thank you! ${amount} of it was more than was needed and ${done ? 'has been' : 'is being'} refunded to you.`,
    payDue: 'Go back to the invoice to pay what is still due',
    attemptFailed: 'That attempt did not go through, and no money was taken. You can try again.',
    tryAgain: 'Try again',
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
    refundingStatus: 'ফেরত দেওয়া হচ্ছে',
    refundedStatus: 'ফেরত দেওয়া হয়েছে',
    notCounted: (amount: string, done: boolean) =>
      `আপনার ${amount} পেমেন্ট পাওয়া গেছে, কিন্তু এটি গণনা করা যায়নি, তাই পুরো টাকা আপনাকে ফেরত ${done ? 'দেওয়া হয়েছে' : 'দেওয়া হচ্ছে'}।`,
    excess: (amount: string, done: boolean) =>
      `পেমেন্ট পাওয়া গেছে। ধন্যবাদ! এর মধ্যে প্রয়োজনের চেয়ে বেশি ${amount} আপনাকে ফেরত ${done ? 'দেওয়া হয়েছে' : 'দেওয়া হচ্ছে'}।`,
    payDue: 'বাকি টাকা পরিশোধ করতে ইনভয়েসে ফিরে যান',
    attemptFailed: 'এই চেষ্টাটি সফল হয়নি, কোনো টাকা কাটা হয়নি। আবার চেষ্টা করতে পারেন।',
    tryAgain: 'আবার চেষ্টা করুন',
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
 * A capture that brought more than was needed says so (decisions sections 13
 * and 19): all of it (another amount than asked, or an invoice already paid
 * or void) is refunded in full, with a link to the invoice's pay page when
 * it still has something due (`invoicePayPage`); part of it, that the excess
 * is refunded.
 */
export function paymentResultPage(
  p: Payment,
  merchant: Merchant,
  lang: Lang = 'en',
  invoicePayPage: string | null = null,
): string {
  const w = WORDS[lang];
  const way = merchant.siteUrl
    ? html`<div class="actions"><a class="button" href="${merchant.siteUrl}" data-testid="back-to-merchant">${w.back(merchant.name)}</a></div>`
    : html`<p class="muted" data-testid="back-to-merchant">${w.close(merchant.name)}</p>`;
  const excess = p.status === 'SUCCEEDED' ? p.excessMinor : 0;
  const whole = excess > 0 && excess >= p.amountMinor;
  const refunded = excess > 0 && p.amountRefundedMinor >= excess;
  const status = whole
    ? html`<span class="status refunding" data-testid="payment-status">${refunded ? w.refundedStatus : w.refundingStatus}</span>`
    : html`<span class="status ${p.status.toLowerCase()}" data-testid="payment-status">${w.status[p.status] ?? p.status}</span>`;
  // A declined attempt on a checkout the payer may still pay (decisions 19): say so, offer it again.
  const retry =
    p.status === 'PENDING' && p.failureReason && /^https?:\/\//.test(p.checkoutUrl ?? '');
  const message = retry
    ? html`<p data-testid="attempt-failed">${w.attemptFailed}</p>
<div class="actions"><a class="button" href="${p.checkoutUrl!}" data-testid="try-again">${w.tryAgain}</a></div>`
    : excess === 0
      ? html`<p>${w.message[p.status] ?? ''}</p>`
      : html`<p data-testid="refund-message">${whole ? w.notCounted(takaFor(lang, p.amountMinor), refunded) : w.excess(takaFor(lang, excess), refunded)}</p>
${whole && invoicePayPage ? html`<div class="actions"><a class="button" href="${invoicePayPage}?lang=${lang}" data-testid="invoice-pay-page">${w.payDue}</a></div>` : ''}`;
  return page(
    w.title,
    '#0f766e',
    html`<header><h1>${w.payment} <span data-testid="payment-amount">${takaFor(lang, p.amountMinor)}</span></h1></header>
<p data-testid="merchant">${w.to(merchant.name)}</p>
${langToggle(`/pay/result/${p.reference}`, lang)}
<p>${status}</p>
${message}
<p class="muted">${w.reference} ${p.reference}</p>
${way}`,
    lang,
  );
}

/** No such payment (an unknown reference, or a gateway return that matches none). */
export function paymentNotFoundPage(lang: Lang = 'en'): string {
  return notFoundPage(WORDS[lang].notFound, lang);
}
