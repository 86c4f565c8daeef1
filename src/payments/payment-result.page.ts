import { html, page } from '../common/html/html';
import { formatTaka } from '../common/money/money';
import type { Payment } from './payment.entity';

const WORDS: Record<string, string> = {
  SUCCEEDED: 'Payment received. Thank you!',
  FAILED: 'The payment failed. No money was taken.',
  CANCELLED: 'The payment was cancelled.',
  EXPIRED: 'This checkout expired.',
  PENDING: 'We are still waiting for the payment to be confirmed.',
};

/** Shown when a payment without merchant return URLs finishes. */
export function paymentResultPage(p: Payment): string {
  return page(
    'Payment status',
    '#0f766e',
    html`<header><h1>Payment ${formatTaka(p.amountMinor)}</h1></header>
<p><span class="status ${p.status.toLowerCase()}" data-testid="payment-status">${p.status}</span></p>
<p>${WORDS[p.status] ?? ''}</p>
<p class="muted">Reference ${p.reference}</p>`,
  );
}
