import { escapeHtml, safeColor, safeUrl } from '../common/html/html';
import { localDigits, takaFor } from '../common/html/language';
import type { Language, NotificationKind } from './notification.entity';

/** What every message is written from: facts of the invoice, the merchant and the link. */
export interface MessageFacts {
  kind: NotificationKind;
  language: Language;
  /** The template's companyName for the mode, else the app's name. */
  merchant: string;
  invoiceNumber: string;
  /** Poisha: the amount due (invoice, reminder, trial) or received (receipt). */
  amountMinor: number;
  /** The invoice's due date (YYYY-MM-DD, a Dhaka date). */
  dueDate: string;
  /** The pay link, or the receipt link for a receipt: always written whole. */
  link: string;
  /** Receipts: the gateway's transaction id and the moment of the capture. */
  transactionId?: string | null;
  paidAt?: Date;
  /** Trial-ending notices: the day the trial ends. */
  trialEndDate?: string | null;
  /** The template's branding for emails. */
  logoUrl?: string | null;
  accentColor?: string | null;
}

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
  sms: string;
}

const MONTHS: Record<Language, string[]> = {
  en: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
  bn: ['জানু', 'ফেব্রু', 'মার্চ', 'এপ্রিল', 'মে', 'জুন', 'জুলাই', 'আগস্ট', 'সেপ্টে', 'অক্টো', 'নভে', 'ডিসে'],
};

/** A Dhaka calendar date: "6 Dec 2026" or "৬ ডিসে ২০২৬". */
export function day(date: string, lang: Language): string {
  const [y, m, d] = date.split('-').map(Number);
  return localDigits(lang, `${d} ${MONTHS[lang][m - 1]} ${y}`);
}

/** A moment in Asia/Dhaka (UTC+6, no daylight saving): "29 Nov 2026, 15:13". */
export function dhakaMoment(at: Date, lang: Language): string {
  const local = new Date(at.getTime() + 6 * 3600_000).toISOString();
  const hhmm = local.slice(11, 16);
  return `${day(local.slice(0, 10), lang)}, ${localDigits(lang, hhmm)}`;
}

/**
 * The four messages of decisions section 16 in English and Bangla: the same
 * facts in the email (subject, plain text, HTML in the app's template) and
 * the SMS (as short as the facts allow: a Bangla segment holds 70
 * characters). Amounts as section 5 writes them (৳ first, lakh grouping,
 * Bengali digits in Bangla); identifiers and links keep ASCII digits. No
 * tracking: no pixel, no rewritten link.
 */
export function renderMessage(f: MessageFacts): RenderedMessage {
  const lang = f.language;
  const amount = takaFor(lang, f.amountMinor);
  const due = day(f.dueDate, lang);
  const n = f.invoiceNumber;
  let subject: string;
  let lines: string[];
  let sms: string;
  let action: string;
  switch (f.kind) {
    case 'RECEIPT': {
      const when = f.paidAt ? dhakaMoment(f.paidAt, lang) : '';
      const txn = f.transactionId ?? '-';
      action = lang === 'bn' ? 'রসিদ দেখুন' : 'View receipt';
      if (lang === 'bn') {
        subject = `${f.merchant}: ইনভয়েস ${n}-এর রসিদ`;
        lines = [
          `${f.merchant} ইনভয়েস ${n}-এর জন্য ${amount} পেয়েছে।`,
          `লেনদেন: ${txn}`,
          `সময়: ${when} (ঢাকা)`,
          `রসিদ: ${f.link}`,
        ];
        sms = `${f.merchant}: ${n}-এর ${amount} পাওয়া গেছে। লেনদেন ${txn}, ${when}। রসিদ: ${f.link}`;
      } else {
        subject = `Receipt for invoice ${n} from ${f.merchant}`;
        lines = [
          `${f.merchant} received ${amount} for invoice ${n}.`,
          `Transaction: ${txn}`,
          `Time: ${when} (Dhaka)`,
          `Receipt: ${f.link}`,
        ];
        sms = `${f.merchant}: received ${amount} for ${n}. Txn ${txn}, ${when}. Receipt: ${f.link}`;
      }
      break;
    }
    case 'INVOICE':
      action = lang === 'bn' ? 'পরিশোধ করুন' : 'Pay now';
      if (lang === 'bn') {
        subject = `${f.merchant}: ইনভয়েস ${n}, ${amount}`;
        lines = [
          `${f.merchant} আপনাকে ${amount}-এর ইনভয়েস ${n} পাঠিয়েছে।`,
          `পরিশোধের শেষ তারিখ: ${due}`,
          `পরিশোধ করুন: ${f.link}`,
        ];
        sms = `${f.merchant}: ইনভয়েস ${n}, ${amount}, শেষ তারিখ ${due}। পরিশোধ: ${f.link}`;
      } else {
        subject = `Invoice ${n} from ${f.merchant}: ${amount}`;
        lines = [
          `${f.merchant} sent you invoice ${n} for ${amount}.`,
          `Due: ${due}`,
          `Pay: ${f.link}`,
        ];
        sms = `${f.merchant}: invoice ${n} for ${amount}, due ${due}. Pay: ${f.link}`;
      }
      break;
    case 'DUNNING_REMINDER':
      action = lang === 'bn' ? 'পরিশোধ করুন' : 'Pay now';
      if (lang === 'bn') {
        subject = `মনে করিয়ে দিচ্ছি: ${f.merchant}-এর ইনভয়েস ${n} বাকি`;
        lines = [
          `${f.merchant}-এর ইনভয়েস ${n} (${amount}) পরিশোধের শেষ তারিখ ছিল ${due}; এখনো বাকি।`,
          `পরিশোধ করুন: ${f.link}`,
        ];
        sms = `${f.merchant}: ইনভয়েস ${n} (${amount}) ${due} থেকে বাকি। পরিশোধ: ${f.link}`;
      } else {
        subject = `Reminder: invoice ${n} from ${f.merchant} is overdue`;
        lines = [
          `Invoice ${n} from ${f.merchant} for ${amount} was due on ${due} and is unpaid.`,
          `Pay: ${f.link}`,
        ];
        sms = `${f.merchant}: invoice ${n} (${amount}) overdue since ${due}. Pay: ${f.link}`;
      }
      break;
    case 'TRIAL_ENDING': {
      const ends = day(f.trialEndDate ?? f.dueDate, lang);
      action = lang === 'bn' ? 'পরিশোধ করুন' : 'Pay now';
      if (lang === 'bn') {
        subject = `${f.merchant}: আপনার ট্রায়াল ${ends} শেষ হবে`;
        lines = [
          `${f.merchant}-এ আপনার ট্রায়াল ${ends} শেষ হবে।`,
          `প্রথম ইনভয়েস ${n}: ${amount}, শেষ তারিখ ${due}।`,
          `পরিশোধ করুন: ${f.link}`,
        ];
        sms = `${f.merchant}: ট্রায়াল ${ends} শেষ। ইনভয়েস ${n}, ${amount}। পরিশোধ: ${f.link}`;
      } else {
        subject = `Your ${f.merchant} trial ends on ${ends}`;
        lines = [
          `Your trial with ${f.merchant} ends on ${ends}.`,
          `First invoice ${n}: ${amount}, due ${due}.`,
          `Pay: ${f.link}`,
        ];
        sms = `${f.merchant}: trial ends ${ends}. Invoice ${n}, ${amount}. Pay: ${f.link}`;
      }
      break;
    }
  }
  return {
    subject,
    text: `${lines.join('\n')}\n`,
    html: emailHtml(f, subject, lines, action),
    sms,
  };
}

/** The email's HTML: the template's logo and accent colour, the facts, one button; inline styles only (email clients strip stylesheets). */
function emailHtml(f: MessageFacts, subject: string, lines: string[], action: string): string {
  const accent = safeColor(f.accentColor);
  const logo = safeUrl(f.logoUrl);
  const body = lines
    .slice(0, -1)
    .map((l) => `<p style="margin:0 0 12px">${escapeHtml(l)}</p>`)
    .join('');
  return `<!doctype html><html lang="${f.language}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f6f7f9;font-family:'Noto Sans Bengali','Segoe UI',Roboto,Arial,sans-serif;color:#1c2430">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;border-top:6px solid ${accent};padding:24px">
${logo ? `<img src="${escapeHtml(logo)}" alt="${escapeHtml(f.merchant)}" style="max-height:48px;margin-bottom:16px">` : ''}
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(f.merchant)}</h1>
${body}
<p style="margin:20px 0"><a href="${escapeHtml(f.link)}" style="background:${accent};color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(action)}</a></p>
<p style="font-size:12px;color:#4d5866;word-break:break-all">${escapeHtml(f.link)}</p>
</div></body></html>`;
}

/** SMS segments: 160 GSM-7 characters, or 70 UCS-2 ones when any character is outside GSM-7 (Bangla). */
export function smsSegments(text: string): number {
  const ucs2 = /[^\x20-\x7e\n\r]/.test(text);
  const single = ucs2 ? 70 : 160;
  const multi = ucs2 ? 67 : 153;
  const length = [...text].length;
  return length <= single ? 1 : Math.ceil(length / multi);
}
