import type { Lang } from './i18n';

/**
 * The API's enumerated values (statuses, kinds, channels, modes, intervals,
 * reconciliation classes) as people read them: in English as the API spells
 * them (the acceptance checks find `SUCCEEDED`, `RECEIPT` by that text), in
 * Bangla in Bangla (decisions section 20: "statuses, kinds and column
 * headers in Bangla"). A value not listed here is shown as it is.
 */
const BN: Record<string, string> = {
  // Invoices
  ISSUED: 'ইস্যু করা',
  PARTIALLY_PAID: 'আংশিক পরিশোধিত',
  PAID: 'পরিশোধিত',
  VOID: 'বাতিল',
  // Payments and refunds
  PENDING: 'অপেক্ষমাণ',
  SUCCEEDED: 'সফল',
  FAILED: 'ব্যর্থ',
  CANCELLED: 'বাতিল',
  EXPIRED: 'মেয়াদোত্তীর্ণ',
  NORMAL: 'স্বাভাবিক',
  HIGH: 'উচ্চ',
  // Subscriptions
  INCOMPLETE: 'অসম্পূর্ণ',
  TRIALING: 'ট্রায়াল চলছে',
  ACTIVE: 'সক্রিয়',
  PAST_DUE: 'বকেয়া',
  PAUSED: 'বিরতিতে',
  CANCELED: 'বাতিল',
  DAY: 'দিন',
  WEEK: 'সপ্তাহ',
  MONTH: 'মাস',
  YEAR: 'বছর',
  // Notifications
  RECEIPT: 'রসিদ',
  DUNNING_REMINDER: 'বকেয়া রিমাইন্ডার',
  INVOICE: 'ইনভয়েস',
  TRIAL_ENDING: 'ট্রায়াল শেষ হচ্ছে',
  QUEUED: 'সারিতে',
  SENT: 'পাঠানো হয়েছে',
  SKIPPED: 'বাদ দেওয়া',
  CAPTURED: 'ধরে রাখা (টেস্ট)',
  EMAIL: 'ইমেইল',
  SMS: 'এসএমএস',
  // Webhook deliveries
  RETRYING: 'আবার চেষ্টা হচ্ছে',
  DELIVERED: 'পৌঁছেছে',
  PARKED: 'আটকে আছে',
  UNDELIVERABLE: 'পৌঁছানো যায়নি',
  // Reconciliation
  COMPLETED: 'সম্পন্ন',
  amountMismatch: 'পরিমাণে অমিল',
  missingInternal: 'জোমায় নেই',
  missingInSettlement: 'সেটেলমেন্টে নেই',
  deferred: 'পরে মেলানো হবে',
  api: 'হাতে চালানো',
  nightly: 'রাতের কাজ',
  // Catalog, admin users, apps
  DRAFT: 'খসড়া',
  ARCHIVED: 'আর্কাইভ করা',
  DISABLED: 'বন্ধ',
  SUSPENDED: 'স্থগিত',
  // Modes and languages
  TEST: 'টেস্ট',
  LIVE: 'লাইভ',
  bn: 'বাংলা',
  en: 'English',
};

/** Every value with its Bangla (for the unit test that keeps the list whole). */
export const VALUES_BN: Readonly<Record<string, string>> = BN;

/** An API value (a status, a kind, a mode) in the language. */
export function valueLabel(value: string | null | undefined, lang: Lang): string {
  if (value === null || value === undefined || value === '') return '—';
  return lang === 'bn' ? (BN[value] ?? value) : value;
}
