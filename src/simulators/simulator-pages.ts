import type { IncomingMessage, ServerResponse } from 'node:http';

import { type Lang, pickLang } from '../common/html/language';
import { escapeHtml } from './simulator-server';

/**
 * The simulators' customer pages (decisions section 17): in English or
 * Bangla (`?lang=`, else the browser's Accept-Language, as the gateways'
 * own pages follow the payer's phone), readable at 360 px (nothing wider
 * than the screen: long ids wrap), and served with a Content-Security-Policy
 * that allows no script at all.
 */
export const SIMULATOR_WORDS = {
  en: {
    standIn: 'A local stand-in for the gateway: no money moves.',
    language: 'বাংলা',
    bkash: {
      title: 'bKash (simulator)',
      refunds: 'Refunds of this payment',
      refundModes: [
        ['instant', 'completed at once'],
        ['slow', 'pending at the first status query, completed at the next'],
        ['refused', 'refused'],
      ],
      faults: 'Faults to provoke',
      loseExecute: "Joma's execute captures, but its answer is lost",
      loseRefund: 'The first refund is made, but its answer is lost',
      pay: 'Confirm (wallet, OTP and PIN)',
      otherAmount: 'Confirm, charging 1.00 more than asked',
      fail: 'Fail (insufficient balance)',
      cancel: 'Close (cancel)',
    },
    nagad: {
      title: 'Nagad (simulator)',
      happens: 'What happens',
      outcomes: {
        success: 'Pay (wallet number, OTP and PIN)',
        other_amount: 'Pay, charging 1.00 more than asked',
        failure: 'Fail (insufficient balance)',
        cancel: 'Cancel (Cancelled)',
        abort: 'Leave the page (Aborted)',
      } as Record<string, string>,
      faults: 'Faults to provoke',
      loseCallback: 'Nagad does not send the browser back (the callback is lost)',
      loseVerify: "Nagad's answer to Joma's next verify is lost (the connection drops)",
      slow: "Nagad answers Joma's verify slowly",
      slowModes: [
        ['0', 'no'],
        ['5000', 'after 5 s'],
        ['35000', 'after 35 s (past the default 30 s gateway timeout)'],
      ],
      payNow: 'Confirm',
      stayed: 'Done. Nagad does not send you back to the merchant (the lost callback you picked).',
    },
    ssl: {
      title: 'SSLCommerz (simulator)',
      happens: 'What happens',
      outcomes: {
        success: 'Pay (success)',
        failure: 'Card declined (failure)',
        cancel: 'Cancel',
        other_amount: 'Pay 1.00 more than asked (another amount)',
        high_risk: 'Pay, flagged high risk (risk_level 1)',
        ipn_lost: 'Pay, but the IPN never arrives',
        ipn_twice: 'Pay, and the IPN arrives twice',
      } as Record<string, string>,
      refunds: 'Refunds of this payment',
      refundModes: [
        ['instant', 'done at the first refund query'],
        ['slow', 'processing at the first query, done at the next'],
        ['refused', 'refused (cancelled)'],
      ],
      faults: 'Faults to provoke',
      loseRefund: 'The first refund is made, but its answer is lost',
      payNow: 'Pay now',
      said: {
        VALID: 'Payment successful.',
        FAILED: 'Payment failed.',
        CANCELLED: 'Payment cancelled.',
      } as Record<string, string>,
      back: 'Return to merchant',
    },
  },
  bn: {
    standIn: 'গেটওয়ের একটি স্থানীয় বিকল্প: কোনো টাকা লেনদেন হয় না।',
    language: 'English',
    bkash: {
      title: 'বিকাশ (সিমুলেটর)',
      refunds: 'এই পেমেন্টের রিফান্ড',
      refundModes: [
        ['instant', 'সঙ্গে সঙ্গে সম্পন্ন'],
        ['slow', 'প্রথম স্ট্যাটাস জিজ্ঞাসায় অপেক্ষমাণ, পরেরটিতে সম্পন্ন'],
        ['refused', 'প্রত্যাখ্যাত'],
      ],
      faults: 'যে ত্রুটি ঘটাতে চান',
      loseExecute: 'Joma-র execute টাকা কাটে, কিন্তু উত্তর হারিয়ে যায়',
      loseRefund: 'প্রথম রিফান্ড হয়, কিন্তু উত্তর হারিয়ে যায়',
      pay: 'নিশ্চিত করুন (ওয়ালেট, OTP ও PIN)',
      otherAmount: 'নিশ্চিত করুন, চাওয়ার চেয়ে ১.০০ বেশি কেটে',
      fail: 'ব্যর্থ (অপর্যাপ্ত ব্যালান্স)',
      cancel: 'বন্ধ করুন (বাতিল)',
    },
    nagad: {
      title: 'নগদ (সিমুলেটর)',
      happens: 'কী ঘটবে',
      outcomes: {
        success: 'পরিশোধ (ওয়ালেট নম্বর, OTP ও PIN)',
        other_amount: 'পরিশোধ, চাওয়ার চেয়ে ১.০০ বেশি কেটে',
        failure: 'ব্যর্থ (অপর্যাপ্ত ব্যালান্স)',
        cancel: 'বাতিল (Cancelled)',
        abort: 'পেজ ছেড়ে যান (Aborted)',
      } as Record<string, string>,
      faults: 'যে ত্রুটি ঘটাতে চান',
      loseCallback: 'নগদ ব্রাউজারকে ফেরত পাঠায় না (কলব্যাক হারিয়ে যায়)',
      loseVerify: 'Joma-র পরের verify-এর উত্তর হারিয়ে যায় (সংযোগ কেটে যায়)',
      slow: 'নগদ Joma-র verify-এর উত্তর দেরিতে দেয়',
      slowModes: [
        ['0', 'না'],
        ['5000', '৫ সেকেন্ড পরে'],
        ['35000', '৩৫ সেকেন্ড পরে (ডিফল্ট ৩০ সেকেন্ডের গেটওয়ে টাইমআউটের পরে)'],
      ],
      payNow: 'নিশ্চিত করুন',
      stayed: 'সম্পন্ন। নগদ আপনাকে মার্চেন্টের কাছে ফেরত পাঠায় না (আপনার বেছে নেওয়া হারানো কলব্যাক)।',
    },
    ssl: {
      title: 'SSLCommerz (সিমুলেটর)',
      happens: 'কী ঘটবে',
      outcomes: {
        success: 'পরিশোধ (সফল)',
        failure: 'কার্ড প্রত্যাখ্যাত (ব্যর্থ)',
        cancel: 'বাতিল',
        other_amount: 'চাওয়ার চেয়ে ১.০০ বেশি পরিশোধ (অন্য পরিমাণ)',
        high_risk: 'পরিশোধ, উচ্চ ঝুঁকি চিহ্নিত (risk_level 1)',
        ipn_lost: 'পরিশোধ, কিন্তু IPN কখনো পৌঁছায় না',
        ipn_twice: 'পরিশোধ, এবং IPN দুবার পৌঁছায়',
      } as Record<string, string>,
      refunds: 'এই পেমেন্টের রিফান্ড',
      refundModes: [
        ['instant', 'প্রথম রিফান্ড জিজ্ঞাসায় সম্পন্ন'],
        ['slow', 'প্রথম জিজ্ঞাসায় প্রক্রিয়াধীন, পরেরটিতে সম্পন্ন'],
        ['refused', 'প্রত্যাখ্যাত (বাতিল)'],
      ],
      faults: 'যে ত্রুটি ঘটাতে চান',
      loseRefund: 'প্রথম রিফান্ড হয়, কিন্তু উত্তর হারিয়ে যায়',
      payNow: 'এখন পরিশোধ করুন',
      said: {
        VALID: 'পেমেন্ট সফল হয়েছে।',
        FAILED: 'পেমেন্ট ব্যর্থ হয়েছে।',
        CANCELLED: 'পেমেন্ট বাতিল হয়েছে।',
      } as Record<string, string>,
      back: 'মার্চেন্টের কাছে ফিরে যান',
    },
  },
} as const;

/** The page's language: `?lang=`, else the browser's Accept-Language. */
export function simulatorLang(url: URL, req: IncomingMessage): Lang {
  return pickLang(url.searchParams.get('lang'), undefined, req.headers['accept-language']);
}

/**
 * One simulator page. `toggle` is the same page's URL (the language link
 * sets `lang` on it); none on pages that only post back to the merchant.
 */
export function simulatorPage(title: string, body: string, lang: Lang, toggle?: URL): string {
  const w = SIMULATOR_WORDS[lang];
  let link = '';
  if (toggle) {
    const other = new URL(toggle);
    other.searchParams.set('lang', lang === 'bn' ? 'en' : 'bn');
    link = `<p><a href="${escapeHtml(other.pathname + other.search)}" lang="${lang === 'bn' ? 'en' : 'bn'}">${w.language}</a></p>`;
  }
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>*{box-sizing:border-box}body{font-family:system-ui,"Noto Sans Bengali",sans-serif;max-width:32rem;margin:1rem auto;padding:0 .75rem;overflow-wrap:anywhere}fieldset{margin:.75rem 0;min-width:0}label{display:block;margin:.3rem 0}select,button{font-size:1rem;max-width:100%}select{width:100%}button{padding:.5rem 1rem;margin:.2rem 0;display:block;width:100%;white-space:normal;text-align:left}</style></head>
<body><h1>${escapeHtml(title)}</h1><p><small>${w.standIn}</small></p>${link}${body}</body></html>`;
}

/** Sends a simulator page: no script may run on it, and it posts only to http(s) (decisions 17). */
export function sendPage(res: ServerResponse, body: string, status = 200): void {
  if (res.writableEnded) return;
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; form-action http: https:; base-uri 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
    })
    .end(body);
}

/** Only http(s) addresses are taken as where the payer goes back, or where the IPN goes (decisions 17). */
export function isWebAddress(value: string | null | undefined): boolean {
  try {
    const url = new URL(value ?? '');
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The refund behaviours a developer picks on a simulator page, as `<option>`s. */
export function refundModeOptions(modes: readonly (readonly [string, string])[]): string {
  return modes.map(([value, label]) => `<option value="${value}">${label}</option>`).join('');
}

/** The page's own address as the browser sees it (the mount path put back), for its language link. */
export function pageUrl(mountPath: string, url: URL): URL {
  return new URL(`${mountPath}${url.pathname}${url.search}`, 'http://simulator');
}
