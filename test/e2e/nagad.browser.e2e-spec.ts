import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser } from 'playwright-core';

import {
  launchChromium,
  openDashboard,
  route,
  settled,
  signIn,
} from '../support/dashboard-browser';
import { asApp, createApp, type CreatedApp } from '../support/factories';
import { setGateway } from '../support/gateways';
import { expectBalancedLedger } from '../support/ledger';
import { NagadFake } from '../support/nagad-fake';
import { createTestApp, SUPER_ADMIN, type TestApp } from '../support/test-app';

jest.setTimeout(240_000);

/**
 * Issue 60, "Done when": an invoice is paid through Nagad in Chromium on a
 * laptop against the Nagad simulator, in Bangla and in English at 360 px,
 * and refunded. The payer opens the hosted pay page, chooses Nagad, picks
 * "pay" on Nagad's page (the simulator, on another site than Joma's) and
 * comes back to the pay page showing the invoice paid in their language.
 * The merchant refunds it: Nagad has no refund call, so the refund is
 * PENDING and manual; the operator pays the customer back outside Joma and
 * marks it refunded on the dashboard's Refunds screen (`Mark refunded`,
 * POST /admin/refunds/{id}/complete) at the same 360 px.
 */
describe('Nagad on a laptop: pay an invoice and refund it (Chromium, 360 px)', () => {
  let browser: Browser;
  let fake: NagadFake;
  let t: TestApp;
  let app: CreatedApp;
  const shots = mkdtempSync(join(tmpdir(), 'joma-nagad-shots-'));

  beforeAll(async () => {
    browser = await launchChromium();
    fake = await new NagadFake().start();
    // Nagad's page on another site than Joma's: the way back is cross-site, as from the real one.
    fake.pageHost = 'localhost';
    t = await createTestApp({ config: { nagadSandboxUrl: fake.baseUrl } });
    app = await createApp(t, 'Nagad Tea House');
    expect((await setGateway(t, app.id, 'nagad', 'TEST', { ...fake.credentials })).status).toBe(
      200,
    );
  });
  afterEach(() => expectBalancedLedger(t.db));
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fake?.stop();
  });

  const WORDS = {
    bn: {
      acceptLanguage: 'bn-BD,bn;q=0.9,en;q=0.5',
      button: 'নগদ দিয়ে ৳৭৫০.৫০ পরিশোধ করুন',
      simulator: 'নগদ (সিমুলেটর)',
      paid: 'পরিশোধিত',
      paidMessage: 'এই ইনভয়েস পরিশোধ হয়েছে। ধন্যবাদ!',
      reference: 'NGD-BN-1',
    },
    en: {
      acceptLanguage: 'en-US,en;q=0.9',
      button: 'Pay ৳750.50 with Nagad',
      simulator: 'Nagad (simulator)',
      paid: 'Paid',
      paidMessage: 'This invoice is paid',
      reference: 'NGD-EN-1',
    },
  } as const;

  it.each(['bn', 'en'] as const)(
    'in %s: pay page, Nagad, back paid; refunded PENDING manual, marked refunded on the dashboard: SUCCEEDED',
    async (lang) => {
      const w = WORDS[lang];
      const created = await t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(app.TEST))
        .send({
          customerReference: `nagad-walk-${lang}`,
          customerName: lang === 'bn' ? 'রহিম উদ্দিন' : 'Rahim Uddin',
          lineItems: [{ description: 'Darjeeling 500g', qty: 1, unitAmountMinor: 75050 }],
        });
      expect(created.status).toBe(201);
      const invoice = created.body.data as { id: number; payableUrl: string };
      const payPath = new URL(invoice.payableUrl).pathname;

      // The payer, on a phone-sized window.
      const context = await browser.newContext({
        viewport: { width: 360, height: 740 },
        isMobile: true,
        hasTouch: true,
        extraHTTPHeaders: { 'accept-language': w.acceptLanguage },
      });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      const fits = async () =>
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
          360,
        );

      await page.goto(invoice.payableUrl);
      expect(await page.getAttribute('html', 'lang')).toBe(lang);
      expect(await page.textContent('#pay-with-nagad')).toBe(w.button);
      await fits();
      await page.screenshot({ path: join(shots, `pay-page-${lang}-360.png`), fullPage: true });

      // Nagad's page (the simulator): the payer's language, the amount in taka, within 360 px.
      await Promise.all([
        page.waitForURL(/\/check-out\/[A-Za-z0-9+/=%]+$/),
        page.click('#pay-with-nagad'),
      ]);
      expect(new URL(page.url()).hostname).toBe('localhost');
      expect(await page.getAttribute('html', 'lang')).toBe(lang);
      expect(await page.textContent('h1')).toBe(w.simulator);
      expect(await page.textContent('#nagad-amount')).toBe('750.50 BDT');
      await fits();
      await page.screenshot({
        path: join(shots, `nagad-simulator-${lang}-360.png`),
        fullPage: true,
      });
      const ref = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);

      // "Pay" (checked first), then Nagad sends the browser back to Joma, which asks verify.
      expect(await page.isChecked('input[name=outcome][value=success]')).toBe(true);
      await Promise.all([page.waitForURL((u) => u.pathname === payPath), page.click('#nagad-pay')]);
      expect(await page.getAttribute('html', 'lang')).toBe(lang);
      expect(await page.textContent('[data-testid=invoice-status]')).toBe(w.paid);
      expect(await page.textContent('[data-testid=paid-message]')).toContain(w.paidMessage);
      expect(await page.$('#pay-with-nagad')).toBeNull();
      const issuerRef = fake.purchase(ref).issuerPaymentRefNo!;
      expect(await page.textContent('[data-testid=txn-id]')).toBe(issuerRef);
      await fits();
      await page.screenshot({ path: join(shots, `pay-page-paid-${lang}-360.png`), fullPage: true });
      expect(problems).toEqual([]);
      await context.close();

      const paid = await t.db.query(
        `SELECT id, status, gateway, amount_minor, gateway_txn_id FROM payments WHERE invoice_id = $1`,
        [invoice.id],
      );
      expect(paid.rows).toEqual([
        {
          id: expect.anything(),
          status: 'SUCCEEDED',
          gateway: 'nagad',
          amount_minor: 75050,
          gateway_txn_id: issuerRef,
        },
      ]);
      const paymentId = Number(paid.rows[0].id);

      // The merchant refunds it in full: Nagad has no refund call, so it waits for an operator.
      const refunded = await t
        .http()
        .post(`/api/v1/payments/${paymentId}/refunds`)
        .set(asApp(app.TEST))
        .send({ reason: 'Out of stock' });
      expect(refunded.status).toBe(201);
      expect(refunded.body.data).toMatchObject({
        status: 'PENDING',
        manual: true,
        amountMinor: 75050,
      });
      const refundId = refunded.body.data.id as number;
      // Nothing was sent to Nagad for it (no refund call exists).
      expect(fake.requests.filter((r) => /refund|cancel/i.test(r.path))).toEqual([]);

      // The operator paid the customer back in Nagad's merchant portal, and marks it on the dashboard.
      const admin = await openDashboard(browser, { width: 360 });
      const dash = admin.page;
      dash.setDefaultTimeout(20_000);
      await signIn(dash, t.baseUrl, SUPER_ADMIN.email, SUPER_ADMIN.password);
      await dash.getByRole('combobox', { name: 'App' }).selectOption({ label: 'Nagad Tea House' });
      await dash
        .getByRole('radiogroup', { name: 'Mode' })
        .getByRole('radio', { name: 'TEST' })
        .check();
      await route(dash, '#/refunds');
      await settled(dash, 'Refunds');
      const mark = dash.getByRole('button', { name: `Mark refunded #${refundId}` });
      const row = dash
        .getByRole('table', { name: 'Refunds', exact: true })
        .getByRole('row')
        .filter({ has: mark });
      await row.getByText('Manual', { exact: true }).waitFor();
      await mark.click();
      const form = dash.getByRole('form', { name: `Mark refunded #${refundId}` });
      await form.getByLabel('Reference (optional)').fill(w.reference);
      await form.getByRole('button', { name: 'Mark refunded', exact: true }).click();
      await dash.getByRole('status').filter({ hasText: 'Done' }).waitFor();
      // The list, reloaded, offers it no more.
      await mark.waitFor({ state: 'detached' });
      // The payment's page says it is refunded in full.
      await route(dash, `#/payments/${paymentId}`);
      await dash.getByRole('heading', { level: 1, name: /Payment pay_/ }).waitFor();
      const refundedCell = dash.locator('dl.facts dt:text-is("Refunded") + dd');
      await expect(refundedCell.textContent()).resolves.toBe('৳750.50');
      await dash
        .getByRole('table', { name: 'Refunds', exact: true })
        .getByRole('row')
        .filter({ hasText: 'SUCCEEDED' })
        .waitFor();
      expect(await dash.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      await dash.screenshot({
        path: join(shots, `dashboard-refunded-${lang}-360.png`),
        fullPage: true,
      });
      expect(admin.problems).toEqual([]);
      await admin.context.close();

      const rows = await t.db.query(
        `SELECT r.status, r.manual, r.amount_minor, r.gateway, r.gateway_refund_id,
                p.amount_refunded_minor
           FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE r.id = $1`,
        [refundId],
      );
      expect(rows.rows).toEqual([
        {
          status: 'SUCCEEDED',
          manual: true,
          amount_minor: 75050,
          gateway: 'nagad',
          gateway_refund_id: w.reference,
          amount_refunded_minor: 75050,
        },
      ]);
      const events = await t.db.query(
        `SELECT type FROM events WHERE app_id = $1 AND type LIKE 'refund.%'
            AND (data->>'refund_id')::int = $2 ORDER BY id`,
        [app.id, refundId],
      );
      expect(events.rows.map((r) => r.type)).toEqual(['refund.pending', 'refund.succeeded']);
    },
  );
});
