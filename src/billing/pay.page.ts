import { dhakaDate } from '../common/clock/dhaka-calendar';
import { html, page, safeColor, safeUrl } from '../common/html/html';
import { type Lang, langToggle, localDigits, takaFor } from '../common/html/language';
import { amountDueOf, type InvoiceTemplate, type InvoiceView, isPayable } from '../invoices';
import type { Payment } from '../payments';
import { GATEWAY_LABELS, PAY_BUTTONS, WORDS } from './pay-page-language';

/**
 * The hosted pay page: branded with the app's template, lines and amounts in
 * taka, a Pay button (a plain form: works without JavaScript). Every
 * merchant-supplied string is escaped by `html`.
 */
export interface PayPageInput {
  view: InvoiceView;
  template: InvoiceTemplate | null;
  /** Whether some gateway can take a payment in the invoice's mode. */
  canPay: boolean;
  /** The gateways the app can take this payment through, its default first (one Pay button each). */
  gateways?: string[];
  /** The app has gateways, but none takes the amount due in one transaction (their limits). */
  outsideLimits?: boolean;
  lang?: Lang;
}

/** The merchant's branded header, shared by the pay page and the receipt. */
function merchantHeader(view: InvoiceView, template: InvoiceTemplate | null) {
  const company = template?.companyName || view.appName;
  const logo = safeUrl(template?.logoUrl);
  return html`<header>
  ${logo ? html`<img src="${logo}" alt="${company} logo">` : ''}
  <div>
    <h1 data-testid="company">${company}</h1>
    ${template?.companyAddress ? html`<div class="muted">${template.companyAddress}</div>` : ''}
    ${template?.contactDetails ? html`<div class="muted">${template.contactDetails}</div>` : ''}
  </div>
</header>`;
}

/** "Invoice INV-000001 for Rahim Uddin", or without "for" when no customer name is known. */
function invoiceLine(view: InvoiceView, lang: Lang = 'en') {
  const w = WORDS[lang];
  const name = view.customer.name;
  return html`${w.invoice} <strong>${view.invoice.number}</strong>${name ? html` ${w.for} ${name}` : ''}`;
}

/**
 * Why a Pay click was refused, shown above the page: the invoice's state
 * (paid or void meanwhile), the merchant's setup (no gateway right now), or
 * too many checkouts already open for it (`busy`).
 */
export type PayRefusal = 'state' | 'unavailable' | 'busy';

export function payPage(
  { view, template, canPay, gateways = [], outsideLimits = false, lang = 'en' }: PayPageInput,
  refused?: PayRefusal,
): string {
  const w = WORDS[lang];
  const i = view.invoice;
  const due = amountDueOf(i);
  const company = template?.companyName || view.appName;
  const accent = safeColor(template?.accentColor);
  const stateWord = w.status[i.status] ?? statusWord(i.status);
  const notice =
    refused &&
    (refused === 'state'
      ? w.stateNotice(stateWord)
      : refused === 'busy'
        ? w.busyNow
        : w.unavailableNow);
  const attempt = notice ? null : lastAttempt(view, lang);
  const payable = i.status === 'ISSUED' || i.status === 'PARTIALLY_PAID';
  const money = (minor: number) => takaFor(lang, minor);
  const buttons = (gateways.length ? gateways : ['']).map((g, n) => {
    const words =
      g && gateways.length > 1
        ? (PAY_BUTTONS[g]?.[lang]?.(money(due)) ?? `${w.pay} ${money(due)} (${g})`)
        : `${w.pay} ${money(due)}`;
    return html`<button type="submit" name="gateway" value="${g}" id="${n === 0 ? 'pay-button' : `pay-with-${g}`}" data-gateway="${g}">${words}</button>`;
  });
  const body = html`${merchantHeader(view, template)}
${langToggle(`/pay/${i.payToken}`, lang)}
<p>${invoiceLine(view, lang)}
  <span class="status ${i.status.toLowerCase()}" data-testid="invoice-status">${stateWord}</span></p>
<p class="muted">${w.issued} ${localDigits(lang, dhakaDate(i.issuedAt.getTime()))} · ${w.due} ${localDigits(lang, i.dueDate)}${i.mode === 'TEST' ? ` · ${w.testMode}` : ''}</p>
${i.subscriptionId !== null ? html`<p class="muted" data-testid="subscription">${w.subscription} #${localDigits(lang, String(i.subscriptionId))}</p>` : ''}
${payable && !canPay ? html`<p class="notice unavailable" role="alert" data-testid="unavailable">${outsideLimits ? w.outsideLimits(company) : w.unavailable(company)}</p>` : ''}
${notice ? html`<p class="muted" role="status">${notice}</p>` : ''}
${attempt && canPay ? html`<p class="notice" role="status" data-testid="attempt-notice">${attempt}</p>` : ''}
${refundNotices(view, lang)}
<table>
  <thead><tr><th>${w.item}</th><th class="num">${w.qty}</th><th class="num">${w.unit}</th><th class="num">${w.amount}</th></tr></thead>
  <tbody>
    ${view.lines.map(
      (l) =>
        html`<tr><td>${l.description}</td><td class="num">${localDigits(lang, String(l.qty))}</td><td class="num">${money(l.unitAmountMinor)}</td><td class="num">${money(l.lineTotalMinor)}</td></tr>`,
    )}
  </tbody>
  <tfoot>
    <tr><td colspan="3">${w.total}</td><td class="num">${money(i.totalMinor)}</td></tr>
    ${i.amountPaidMinor > 0 ? html`<tr><td colspan="3">${w.paid}</td><td class="num">${money(i.amountPaidMinor)}</td></tr>` : ''}
    <tr class="total"><td colspan="3">${w.amountDue}</td><td class="num" data-testid="amount-due">${money(due)}</td></tr>
  </tfoot>
</table>
${
  payable
    ? canPay
      ? html`<form method="post" action="/pay/${i.payToken}?lang=${lang}" class="actions">${buttons}</form>`
      : ''
    : i.status === 'PAID'
      ? html`<p data-testid="paid-message">${w.paidMessage}</p>`
      : html`<p data-testid="void-message">${w.voidMessage}</p>`
}
${paymentsReceived(view, lang)}
${template?.footerNote ? html`<footer>${template.footerNote}</footer>` : ''}`;
  return page(`${w.invoice} ${i.number} · ${company}`, accent, body, lang);
}

const DHAKA_TIME: Record<Lang, Intl.DateTimeFormat> = {
  en: dhakaFormat('en-GB'),
  bn: dhakaFormat('bn-BD'),
};

function dhakaFormat(locale: string) {
  return new Intl.DateTimeFormat(locale, {
    timeZone: 'Asia/Dhaka',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  });
}

/** A moment as a customer in Bangladesh reads it: "25 Nov 2026, 14:03 (Dhaka time)" or "২৫ নভে, ২০২৬, ১৪:০৩ (ঢাকা সময়)". */
export function dhakaTime(at: Date, lang: Lang = 'en'): string {
  return `${DHAKA_TIME[lang].format(at)} (${WORDS[lang].dhakaTime})`;
}

function succeeded(view: InvoiceView) {
  return view.payments.filter((p) => p.status === 'SUCCEEDED');
}

/** What a capture counted on the invoice: its amount less its excess (refunded, decisions section 13). */
function countedOf(p: Payment): number {
  return p.amountMinor - p.excessMinor;
}

/** Captures that paid (part of) the invoice; a capture counted on it for nothing is no payment of it. */
function counted(view: InvoiceView) {
  return succeeded(view).filter((p) => countedOf(p) > 0);
}

/**
 * One line per capture that brought more than the invoice needed: all of it
 * not counted (another amount than asked, or the invoice already paid or
 * void), or part of it; that money is refunded automatically.
 */
function refundNotices(view: InvoiceView, lang: Lang) {
  const w = WORDS[lang];
  const lines = succeeded(view)
    .filter((p) => p.excessMinor > 0)
    .map((p) => {
      const done = p.amountRefundedMinor >= p.excessMinor;
      const words =
        countedOf(p) === 0
          ? w.notCounted(takaFor(lang, p.amountMinor), done)
          : w.excessRefund(takaFor(lang, p.excessMinor), done);
      return html`<p class="notice" role="status" data-testid="refund-notice">${words}</p>`;
    });
  return lines.length ? html`${lines}` : '';
}

/** One row per payment counted on the invoice, with what it counted: the customer's proof of payment. */
function paymentRows(view: InvoiceView, lang: Lang) {
  return counted(view).map(
    (p) => html`<tr data-testid="receipt-payment">
  <td>${dhakaTime(p.succeededAt ?? p.updatedAt, lang)}</td>
  <td>${p.paymentMethodLabel ?? GATEWAY_LABELS[p.gateway]?.[lang] ?? p.gateway}</td>
  <td class="txn" data-testid="txn-id">${p.gatewayTxnId ?? p.reference}</td>
  <td class="num">${takaFor(lang, countedOf(p))}</td>
</tr>`,
  );
}

function paymentsTable(view: InvoiceView, lang: Lang) {
  const w = WORDS[lang];
  return html`<table class="payments">
  <thead><tr><th>${w.paidOn}</th><th>${w.method}</th><th>${w.txnId}</th><th class="num">${w.amount}</th></tr></thead>
  <tbody>${paymentRows(view, lang)}</tbody>
</table>`;
}

/** On the pay page: what was received, with links to the receipt and back to the merchant. */
function paymentsReceived(view: InvoiceView, lang: Lang) {
  if (counted(view).length === 0) return '';
  const w = WORDS[lang];
  const back = safeUrl(view.merchantUrl);
  return html`<section data-testid="payments-received">
<h2>${w.paymentReceived}</h2>
${paymentsTable(view, lang)}
<p class="actions">
  <a href="/pay/${view.invoice.payToken}/receipt?lang=${lang}" data-testid="receipt-link">${w.viewReceipt}</a>
  ${back ? html`<a href="${back}" data-testid="merchant-link">${w.returnTo(view.appName)}</a>` : ''}
</p>
</section>`;
}

/**
 * A print-friendly receipt at /pay/{token}/receipt, in the pay page's
 * language: merchant, invoice, lines, and every captured payment with its
 * transaction id, time (Asia/Dhaka), method and the amount it counted on
 * the invoice (never the excess, which is refunded: said below the table).
 * Null when nothing has been counted on it yet.
 */
export function receiptPage({ view, template, lang = 'en' }: PayPageInput): string | null {
  if (counted(view).length === 0) return null;
  const w = WORDS[lang];
  const i = view.invoice;
  const company = template?.companyName || view.appName;
  const paid = counted(view).reduce((sum, p) => sum + countedOf(p), 0);
  const body = html`${merchantHeader(view, template)}
${langToggle(`/pay/${i.payToken}/receipt`, lang, 'lang no-print')}
<h2>${w.receipt}</h2>
<p>${invoiceLine(view, lang)} <span class="status ${i.status.toLowerCase()}">${w.status[i.status] ?? statusWord(i.status)}</span></p>
<p class="muted">${w.issued} ${localDigits(lang, dhakaDate(i.issuedAt.getTime()))}${i.mode === 'TEST' ? ` · ${w.testModeLong}` : ''}</p>
<table>
  <thead><tr><th>${w.item}</th><th class="num">${w.qty}</th><th class="num">${w.amount}</th></tr></thead>
  <tbody>${view.lines.map((l) => html`<tr><td>${l.description}</td><td class="num">${localDigits(lang, String(l.qty))}</td><td class="num">${takaFor(lang, l.lineTotalMinor)}</td></tr>`)}</tbody>
  <tfoot><tr class="total"><td colspan="2">${w.invoiceTotal}</td><td class="num">${takaFor(lang, i.totalMinor)}</td></tr></tfoot>
</table>
${paymentsTable(view, lang)}
${refundNotices(view, lang)}
<p class="total">${w.paid} <span data-testid="receipt-paid">${takaFor(lang, paid)}</span></p>
<p class="muted no-print">${w.printHint} <a href="/pay/${i.payToken}?lang=${lang}">${w.backToInvoice}</a></p>
${template?.footerNote ? html`<footer>${template.footerNote}</footer>` : ''}`;
  return page(
    `${w.receiptTitle} · ${w.invoice} ${i.number} · ${company}`,
    safeColor(template?.accentColor),
    body,
    lang,
  );
}

/** Why a customer is back on a still-payable invoice: the outcome of its latest payment (server state, not the URL). */
function lastAttempt(view: InvoiceView, lang: Lang = 'en'): string | null {
  if (!isPayable(view.invoice.status)) return null;
  const last = view.payments[view.payments.length - 1];
  return last ? (WORDS[lang].attempt[last.status] ?? null) : null;
}

function statusWord(status: string): string {
  return status === 'PARTIALLY_PAID'
    ? 'Partially paid'
    : status === 'VOID'
      ? 'Void'
      : status.charAt(0) + status.slice(1).toLowerCase();
}
