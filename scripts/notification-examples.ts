// Renders an example of each customer message (decisions section 16) in
// English and Bangla to docs/img/notification-<kind>-<lang>.png: the email as
// a mail client shows it, and the SMS under it. For docs/notifications.md:
//   npx ts-node --transpile-only scripts/notification-examples.ts
// (needs Chromium: CHROMIUM_PATH, default /usr/bin/chromium).
import { join } from 'node:path';

import { chromium } from 'playwright-core';

import { escapeHtml } from '../src/common/html/html';
import type { Language, NotificationKind } from '../src/notifications/notification.entity';
import { renderMessage, smsSegments } from '../src/notifications/notification-messages';

const KINDS: NotificationKind[] = ['RECEIPT', 'INVOICE', 'DUNNING_REMINDER', 'TRIAL_ENDING'];
const PAY = 'https://pay.padma.example/pay/Xk3v9QmT2bLr8NwZ';

async function main(): Promise<void> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const page = await browser.newPage({ viewport: { width: 640, height: 400 } });
  for (const kind of KINDS) {
    for (const language of ['en', 'bn'] as Language[]) {
      const m = renderMessage({
        kind,
        language,
        merchant: 'Padma Traders',
        invoiceNumber: 'INV-000042',
        amountMinor: 12_500_050,
        dueDate: '2026-12-06',
        link: kind === 'RECEIPT' ? `${PAY}/receipt` : PAY,
        transactionId: 'SSLCZ-7F3K29QX',
        paidAt: new Date('2026-11-29T09:13:00Z'),
        trialEndDate: '2026-12-02',
        accentColor: '#7c3aed',
      });
      const segments = smsSegments(m.sms);
      const sms = `<div style="max-width:560px;margin:16px auto;font-family:'Noto Sans Bengali',sans-serif">
        <p style="margin:0 0 4px;color:#4d5866;font-size:13px">SMS (${segments} segment${segments > 1 ? 's' : ''})</p>
        <p style="margin:0;padding:12px;background:#e7f0fd;border-radius:12px;white-space:pre-wrap">${escapeHtml(m.sms)}</p></div>`;
      const mail = `<div style="max-width:560px;margin:0 auto 8px;font-family:sans-serif;font-size:13px;color:#4d5866">
        Subject: <strong style="color:#1c2430">${escapeHtml(m.subject)}</strong></div>`;
      await page.setContent(
        m.html
          .replace('<body', `<body`)
          .replace(/(<body[^>]*>)/, `$1${mail}`)
          .replace('</body>', `${sms}</body>`),
      );
      const file = join(
        __dirname,
        '..',
        'docs',
        'img',
        `notification-${kind.toLowerCase().replace('_', '-')}-${language}.png`,
      );
      await page.screenshot({ path: file, fullPage: true });
      console.log(file);
    }
  }
  await browser.close();
}

void main();
