import { html, page } from '../../common/html/html';
import { type Lang, langToggle, takaFor } from '../../common/html/language';
import type { SandboxSession } from './sandbox-session.entity';

const WORDS = {
  en: {
    title: (merchant: string) => `Sandbox checkout · ${merchant}`,
    heading: 'Joma Sandbox Gateway',
    testMode: 'Test mode: no real money moves.',
    pay: 'Pay',
    reference: 'Reference',
    fail: 'Fail',
    cancel: 'Cancel',
    closed: 'The merchant closed this checkout. No payment was taken.',
    complete: 'This checkout is complete.',
    status: { CLOSED: 'CLOSED', PAID: 'PAID', FAILED: 'FAILED', CANCELLED: 'CANCELLED' } as Record<
      string,
      string
    >,
  },
  bn: {
    title: (merchant: string) => `স্যান্ডবক্স চেকআউট · ${merchant}`,
    heading: 'জমা স্যান্ডবক্স গেটওয়ে',
    testMode: 'টেস্ট মোড: আসল কোনো টাকা লেনদেন হয় না।',
    pay: 'পরিশোধ করুন',
    reference: 'রেফারেন্স',
    fail: 'ব্যর্থ করুন',
    cancel: 'বাতিল করুন',
    closed: 'বিক্রেতা এই চেকআউটটি বন্ধ করেছেন। কোনো টাকা কাটা হয়নি।',
    complete: 'এই চেকআউটটি সম্পন্ন হয়েছে।',
    status: { CLOSED: 'বন্ধ', PAID: 'পরিশোধিত', FAILED: 'ব্যর্থ', CANCELLED: 'বাতিল' } as Record<
      string,
      string
    >,
  },
} as const;

/**
 * The sandbox gateway's hosted checkout: Pay, Fail or Cancel, in Bangla or
 * English (`?lang=`, which the pay page passes on, else Accept-Language).
 */
export function sandboxCheckoutPage(s: SandboxSession, lang: Lang = 'en'): string {
  const w = WORDS[lang];
  const open = s.status === 'OPEN';
  const amount = takaFor(lang, s.amountMinor);
  return page(
    w.title(s.merchantName),
    '#4f46e5',
    html`<header><h1>${w.heading}</h1></header>
${langToggle(`/sandbox/checkout/${s.sessionId}`, lang)}
<p class="muted">${w.testMode}</p>
<p>${lang === 'bn' ? html`<strong>${s.merchantName}</strong>-কে ${w.pay.toLowerCase()}` : html`${w.pay} <strong>${s.merchantName}</strong>`}</p>
${s.description ? html`<p>${s.description}</p>` : ''}
<p class="total" data-testid="amount">${amount}</p>
<p class="muted">${w.reference} ${s.paymentReference}</p>
${
  open
    ? html`<form method="post" action="/sandbox/checkout/${s.sessionId}" class="actions">
  <button type="submit" name="outcome" value="pay" id="sandbox-pay">${w.pay} ${amount}</button>
  <button type="submit" name="outcome" value="fail" id="sandbox-fail" class="danger">${w.fail}</button>
  <button type="submit" name="outcome" value="cancel" id="sandbox-cancel" class="secondary">${w.cancel}</button>
</form>`
    : s.status === 'CLOSED'
      ? html`<p><span class="status cancelled">${w.status.CLOSED}</span> ${w.closed}</p>`
      : html`<p><span class="status ${s.status.toLowerCase()}">${w.status[s.status] ?? s.status}</span> ${w.complete}</p>`
}`,
    lang,
  );
}
