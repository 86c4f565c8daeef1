import { html, page } from '../../common/html/html';
import { formatTaka } from '../../common/money/money';
import type { SandboxSession } from './sandbox-session.entity';

/** The sandbox gateway's hosted checkout: Pay, Fail or Cancel. */
export function sandboxCheckoutPage(s: SandboxSession): string {
  const open = s.status === 'OPEN';
  return page(
    `Sandbox checkout · ${s.merchantName}`,
    '#4f46e5',
    html`<header><h1>Joma Sandbox Gateway</h1></header>
<p class="muted">Test mode: no real money moves.</p>
<p>Pay <strong>${s.merchantName}</strong></p>
${s.description ? html`<p>${s.description}</p>` : ''}
<p class="total" data-testid="amount">${formatTaka(s.amountMinor)}</p>
<p class="muted">Reference ${s.paymentReference}</p>
${
  open
    ? html`<form method="post" action="/sandbox/checkout/${s.sessionId}" class="actions">
  <button type="submit" name="outcome" value="pay" id="sandbox-pay">Pay ${formatTaka(s.amountMinor)}</button>
  <button type="submit" name="outcome" value="fail" id="sandbox-fail" class="danger">Fail</button>
  <button type="submit" name="outcome" value="cancel" id="sandbox-cancel" class="secondary">Cancel</button>
</form>`
    : s.status === 'CLOSED'
      ? html`<p><span class="status cancelled">CLOSED</span> The merchant closed this checkout. No payment was taken.</p>`
      : html`<p><span class="status ${s.status.toLowerCase()}">${s.status}</span> This checkout is complete.</p>`
}`,
  );
}
