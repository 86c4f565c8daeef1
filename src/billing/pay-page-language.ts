/** The pay page's and receipt's words, and the gateways' names, in Bangla and English. */
import { INVALID_LINK, type Lang } from '../common/html/language';

export const GATEWAY_LABELS: Record<string, Record<Lang, string>> = {
  sandbox: { en: 'Sandbox (test)', bn: 'স্যান্ডবক্স (পরীক্ষা)' },
  sslcommerz: { en: 'SSLCommerz (cards, mobile banking)', bn: 'SSLCommerz (কার্ড, মোবাইল ব্যাংকিং)' },
  bkash: { en: 'bKash', bn: 'বিকাশ' },
  nagad: { en: 'Nagad', bn: 'নগদ' },
};

/**
 * A Pay button when the payer chooses between gateways: the way of paying in
 * words a payer knows (bKash, a card, mobile banking), the amount in it;
 * the gateway company's name only where payers know it (bKash, Nagad).
 */
export const PAY_BUTTONS: Record<string, Record<Lang, (amount: string) => string>> = {
  sandbox: {
    en: (a) => `Pay ${a} in the test sandbox`,
    bn: (a) => `টেস্ট স্যান্ডবক্সে ${a} পরিশোধ করুন`,
  },
  sslcommerz: {
    en: (a) => `Pay ${a} by card or mobile banking`,
    bn: (a) => `কার্ড বা মোবাইল ব্যাংকিং দিয়ে ${a} পরিশোধ করুন`,
  },
  bkash: {
    en: (a) => `Pay ${a} with bKash`,
    bn: (a) => `বিকাশ দিয়ে ${a} পরিশোধ করুন`,
  },
  nagad: {
    en: (a) => `Pay ${a} with Nagad`,
    bn: (a) => `নগদ দিয়ে ${a} পরিশোধ করুন`,
  },
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
    paidMessage: 'This invoice is paid. Thank you!',
    voidMessage: 'This invoice has been voided and cannot be paid.',
    unavailable: (company: string) =>
      `Online payment is not available for this invoice. Please contact ${company} to pay it another way.`,
    outsideLimits: (company: string) =>
      `This amount is outside what the online payment methods accept in one payment. Please contact ${company} to pay it another way.`,
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
    notFound: ['Invoice not found', INVALID_LINK.en],
    stateNotice: (status: string) => `This invoice is ${status.toLowerCase()}.`,
    unavailableNow:
      'Online payment is not available for this invoice right now. Please contact the merchant.',
    busyNow:
      'This invoice already has payments in progress. Finish one of them, or try again in a few minutes.',
    notCounted: (amount: string, done: boolean) =>
      `${amount} received and ${done ? 'refunded' : 'being refunded'} (could not be counted toward this invoice).`,
    excessRefund: (amount: string, done: boolean) =>
      `${amount} received beyond what this invoice needed, and ${done ? 'refunded' : 'being refunded'}.`,
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
    paidMessage: 'এই ইনভয়েস পরিশোধ হয়েছে। ধন্যবাদ!',
    voidMessage: 'এই ইনভয়েস বাতিল করা হয়েছে, পরিশোধ করা যাবে না।',
    unavailable: (company: string) =>
      `এই ইনভয়েস অনলাইনে পরিশোধ করা যাচ্ছে না। অন্যভাবে পরিশোধ করতে ${company}-এর সাথে যোগাযোগ করুন।`,
    outsideLimits: (company: string) =>
      `এই পরিমাণ একবারে অনলাইনে পরিশোধের সীমার বাইরে। অন্যভাবে পরিশোধ করতে ${company}-এর সাথে যোগাযোগ করুন।`,
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
    notFound: ['ইনভয়েস পাওয়া যায়নি', INVALID_LINK.bn],
    stateNotice: (status: string) => `এই ইনভয়েসটি ${status}।`,
    unavailableNow:
      'এই ইনভয়েস এখন অনলাইনে পরিশোধ করা যাচ্ছে না। অনুগ্রহ করে বিক্রেতার সাথে যোগাযোগ করুন।',
    busyNow:
      'এই ইনভয়েসের কয়েকটি পরিশোধ এখন চলমান। সেগুলোর একটি শেষ করুন, অথবা কয়েক মিনিট পরে আবার চেষ্টা করুন।',
    notCounted: (amount: string, done: boolean) =>
      `${amount} পাওয়া গেছে এবং ফেরত ${done ? 'দেওয়া হয়েছে' : 'দেওয়া হচ্ছে'} (এই ইনভয়েসে গণনা করা যায়নি)।`,
    excessRefund: (amount: string, done: boolean) =>
      `এই ইনভয়েসের প্রয়োজনের চেয়ে বেশি পাওয়া ${amount} ফেরত ${done ? 'দেওয়া হয়েছে' : 'দেওয়া হচ্ছে'}।`,
  },
} as const;
