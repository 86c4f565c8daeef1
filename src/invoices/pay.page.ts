import { html, page, safeColor, safeUrl } from '../common/html/html';
import { formatTaka } from '../common/money/money';
import type { InvoiceTemplate } from './invoice.entity';
import type { InvoiceView } from './invoice.mapper';
import { amountDueOf, isPayable } from './invoice-state';

/**
 * The hosted pay page: branded with the app's template, lines and amounts in
 * taka, a Pay button (a plain form: works without JavaScript). Every
 * merchant-supplied string is escaped by `html`.
 */
export function payPage(
  view: InvoiceView,
  template: InvoiceTemplate | null,
  notice?: string,
): string {
  const i = view.invoice;
  const due = amountDueOf(i);
  const company = template?.companyName || view.appName;
  const logo = safeUrl(template?.logoUrl);
  const accent = safeColor(template?.accentColor);
  const attempt = notice ? null : lastAttempt(view);
  const body = html`<header>
  ${logo ? html`<img src="${logo}" alt="${company} logo">` : ''}
  <div>
    <h1 data-testid="company">${company}</h1>
    ${template?.companyAddress ? html`<div class="muted">${template.companyAddress}</div>` : ''}
    ${template?.contactDetails ? html`<div class="muted">${template.contactDetails}</div>` : ''}
  </div>
</header>
<p>Invoice <strong>${i.number}</strong> for ${view.customer.name ?? view.customer.externalId}
  <span class="status ${i.status.toLowerCase()}" data-testid="invoice-status">${statusWord(i.status)}</span></p>
<p class="muted">Issued ${i.issuedAt.toISOString().slice(0, 10)} · Due ${i.dueDate}${i.mode === 'TEST' ? ' · TEST MODE' : ''}</p>
${notice ? html`<p class="muted" role="status">${notice}</p>` : ''}
${attempt ? html`<p class="notice" role="status" data-testid="attempt-notice">${attempt}</p>` : ''}
<table>
  <thead><tr><th>Item</th><th class="num">Qty</th><th class="num">Unit</th><th class="num">Amount</th></tr></thead>
  <tbody>
    ${view.lines.map(
      (l) =>
        html`<tr><td>${l.description}</td><td class="num">${l.qty}</td><td class="num">${formatTaka(l.unitAmountMinor)}</td><td class="num">${formatTaka(l.lineTotalMinor)}</td></tr>`,
    )}
  </tbody>
  <tfoot>
    <tr><td colspan="3">Total</td><td class="num">${formatTaka(i.totalMinor)}</td></tr>
    ${i.amountPaidMinor > 0 ? html`<tr><td colspan="3">Paid</td><td class="num">${formatTaka(i.amountPaidMinor)}</td></tr>` : ''}
    <tr class="total"><td colspan="3">Amount due</td><td class="num" data-testid="amount-due">${formatTaka(due)}</td></tr>
  </tfoot>
</table>
${
  i.status === 'ISSUED' || i.status === 'PARTIALLY_PAID'
    ? html`<form method="post" action="/pay/${i.payToken}" class="actions"><button type="submit" id="pay-button">Pay ${formatTaka(due)}</button></form>`
    : i.status === 'PAID'
      ? html`<p data-testid="paid-message">This invoice is paid. Thank you!</p>`
      : html`<p data-testid="void-message">This invoice has been voided and cannot be paid.</p>`
}
${template?.footerNote ? html`<footer>${template.footerNote}</footer>` : ''}`;
  return page(`Invoice ${i.number} · ${company}`, accent, body);
}

const ATTEMPT_WORDS: Record<string, string> = {
  FAILED: 'Your last payment attempt failed. No money was taken. You can try again.',
  CANCELLED: 'Your last payment attempt was cancelled. You can try again.',
  EXPIRED: 'Your last checkout expired before it was completed. You can try again.',
};

/** Why a customer is back on a still-payable invoice: the outcome of its latest payment (server state, not the URL). */
function lastAttempt(view: InvoiceView): string | null {
  if (!isPayable(view.invoice.status)) return null;
  const last = view.payments[view.payments.length - 1];
  return last ? (ATTEMPT_WORDS[last.status] ?? null) : null;
}

function statusWord(status: string): string {
  return status === 'PARTIALLY_PAID'
    ? 'Partially paid'
    : status === 'VOID'
      ? 'Void'
      : status.charAt(0) + status.slice(1).toLowerCase();
}

export function notFoundPage(): string {
  return page(
    'Invoice not found',
    '#6b7280',
    html`<h1>Invoice not found</h1><p>This payment link is not valid.</p>`,
  );
}
