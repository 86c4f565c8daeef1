import { readFileSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';

import {
  audit,
  launchChromium,
  openDashboard,
  route,
  settled,
  sidewaysScroll,
  signIn,
} from '../support/dashboard-browser';
import { asApp, bearer, createApp, type CreatedApp, superAdminToken } from '../support/factories';
import { createInvoice, createPayment, settle } from '../support/payments';
import { createTestApp, type TestApp } from '../support/test-app';
import { eventually, workersOf } from '../support/webhooks';

/**
 * The dashboard's round 2 for the money screens (decisions 20, issue 58) in
 * Chromium, by the accessible names decisions 20 fixes: `Skip to content`
 * first, `Menu` at 360 px with the header and navigation within 120 px,
 * unique landmark names and no sideways scroll on every screen in both
 * languages and both widths; Bangla throughout (statuses, kinds, column
 * headers, Bengali digits, 24-hour times); the Overview's gross, refunded
 * and net with `Show as table`; the invoice form's `Add line` and `Send to
 * customer`; invoice numbers as link text; `From`, `To`, `Search` and
 * `Export CSV` on Invoices, Payments and Refunds; the Customers list and
 * detail. The tests run in order on one instance.
 */
jest.setTimeout(240_000);

const EMAIL = 'accounts@padma.test';
const PASSWORD = 'correct-horse-battery';
/** Today's and other Asia/Dhaka days, YYYY-MM-DD (Dhaka keeps +06:00). */
const dhakaDay = (offsetDays = 0) =>
  new Date(Date.now() + 6 * 3600_000 + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** The screens of this spec, by route, with their heading (English, Bangla). */
const SCREENS: [string, string, string][] = [
  ['#/overview', 'Overview', 'সারসংক্ষেপ'],
  ['#/invoices', 'Invoices', 'ইনভয়েস'],
  ['#/invoices/new', 'New invoice', 'নতুন ইনভয়েস'],
  ['#/payments', 'Payments', 'পেমেন্ট'],
  ['#/refunds', 'Refunds', 'রিফান্ড'],
  ['#/subscriptions', 'Subscriptions', 'সাবস্ক্রিপশন'],
  ['#/customers', 'Customers', 'গ্রাহক'],
  ['#/notifications', 'Notifications', 'নোটিফিকেশন'],
  ['#/reconciliation', 'Reconciliation', 'মিলকরণ'],
  ['#/ledger', 'Ledger', 'লেজার'],
  ['#/audit', 'Audit log', 'অডিট লগ'],
];

describe('the dashboard: layout, Bangla, overview, invoices, lists and customers (Chromium)', () => {
  let t: TestApp;
  let browser: Browser;
  let app: CreatedApp;
  let root: Record<string, string>;
  // What beforeAll makes: two paid invoices (one refunded in part), one open, one refund waiting.
  let paid: Record<string, any>;
  let other: Record<string, any>;
  let open: Record<string, any>;
  let payment: Record<string, any>;
  let otherPayment: Record<string, any>;
  let waitingRefundId = 0;

  beforeAll(async () => {
    browser = await launchChromium();
    t = await createTestApp({ config: { webhookPollIntervalMs: 100 } });
    await workersOf(t).start();
    root = bearer(await superAdminToken(t));
    await t
      .http()
      .post('/api/v1/admin/users')
      .set(root)
      .send({ email: EMAIL, name: 'Nusrat Jahan', password: PASSWORD, superAdmin: true });
    app = await createApp(t, 'Padma Traders');
    // Refunds above ৳500 wait for an operator.
    await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/settings`)
      .set(root)
      .send({ refundApprovalThresholdMinor: 50_000 });
    const customer = {
      customerReference: 'rahim-uddin',
      customerName: 'Rahim Uddin',
      customerEmail: 'rahim@example.com',
    };
    paid = await createInvoice(t, app.TEST, {
      ...customer,
      lineItems: [{ description: 'Annual plan', qty: 1, unitAmountMinor: 12_500_000 }],
    });
    other = await createInvoice(t, app.TEST, {
      customerReference: 'karim-ahmed',
      customerName: 'Karim Ahmed',
      customerEmail: 'karim@example.com',
      lineItems: [{ description: 'Setup', qty: 2, unitAmountMinor: 250_000 }],
    });
    open = await createInvoice(t, app.TEST, { ...customer });
    payment = await createPayment(t, app.TEST, {
      invoiceId: paid.id,
      amountMinor: paid.amountDueMinor,
      customerReference: customer.customerReference,
    });
    expect((await settle(t, app.TEST, payment.id)).status).toBe(200);
    otherPayment = await createPayment(t, app.TEST, {
      invoiceId: other.id,
      amountMinor: other.amountDueMinor,
      customerReference: 'karim-ahmed',
    });
    expect((await settle(t, app.TEST, otherPayment.id)).status).toBe(200);
    // ৳100 refunded at once; ৳1,000 waits for approval.
    for (const amountMinor of [10_000, 100_000]) {
      const r = await t
        .http()
        .post(`/api/v1/payments/${payment.id}/refunds`)
        .set(asApp(app.TEST))
        .send({ amountMinor, reason: 'Late delivery' });
      expect(r.status).toBe(201);
      if (amountMinor === 100_000) waitingRefundId = r.body.data.id;
    }
    // The payer's receipt (decisions 16), captured in TEST.
    await eventually(
      async () =>
        (
          await t.db.query(
            `SELECT 1 FROM notifications WHERE app_id = $1 AND kind = 'RECEIPT' AND invoice_id = $2`,
            [app.id, paid.id],
          )
        ).rowCount,
      20_000,
      'the receipt',
    );
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open360or1280(width: number, locale: string) {
    const o = await openDashboard(browser, { width, locale });
    await signIn(o.page, t.baseUrl, EMAIL, PASSWORD);
    await o.page.getByRole('combobox', { name: 'App' }).selectOption({ label: 'Padma Traders' });
    return o;
  }
  const main = (page: Page) => page.getByRole('main');
  /** Text of the main landmark outside links, code, inputs and the given data (names, emails). */
  const plainText = (page: Page) =>
    page.evaluate(`(() => {
      const out = [];
      const walk = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        // Identifiers: links, code, and the heading that names a record (INV-000001, pay_...).
        if (n.parentElement.closest('a, code, pre, input, select, textarea, h1')) continue;
        out.push(n.textContent);
      }
      return out.join(' ');
    })()`) as Promise<string>;
  /** Whether the element `locator` finds has the keyboard focus (or holds it, with `within`). */
  const focused = (locator: ReturnType<Page['locator']>, within = false) =>
    locator.evaluate((e, w) => {
      const active = (e.ownerDocument as unknown as { activeElement: unknown }).activeElement;
      return w
        ? (e as unknown as { contains(n: unknown): boolean }).contains(active)
        : e === active;
    }, within);

  it('Skip to content comes first; at 360 px Menu folds the navigation and the header and navigation take at most 120 px; landmarks are unique and nothing scrolls sideways, in both languages and widths', async () => {
    const long = `#/payments/${payment.id}`;
    for (const width of [360, 1280]) {
      for (const lang of ['en', 'bn'] as const) {
        const { page, problems, context } = await open360or1280(width, 'en-US');
        if (lang === 'bn') await page.getByRole('button', { name: 'বাংলা' }).click();
        // On a fresh page the first Tab reaches `Skip to content`; it moves the focus to the content.
        await page.reload();
        await page.getByRole('combobox').waitFor();
        await page.keyboard.press('Tab');
        const skip = page.getByRole('link', {
          name: lang === 'en' ? 'Skip to content' : 'মূল অংশে যান',
        });
        await expect(focused(skip)).resolves.toBe(true);
        await page.keyboard.press('Enter');
        await expect(focused(main(page), true)).resolves.toBe(true);
        expect(new URL(page.url()).hash).not.toBe('#content');

        const menu = page.getByRole('button', { name: lang === 'en' ? 'Menu' : 'মেনু' });
        const nav = page.getByRole('navigation', { name: lang === 'en' ? 'Sections' : 'বিভাগ' });
        if (width === 360) {
          await expect(nav.isVisible()).resolves.toBe(false);
          await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');
          await menu.click();
          await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
          await nav.getByRole('link', { name: lang === 'en' ? 'Invoices' : 'ইনভয়েস' }).click();
          await settled(page, lang === 'en' ? 'Invoices' : 'ইনভয়েস');
          // Moving on folds it again.
          await expect(nav.isVisible()).resolves.toBe(false);
        } else {
          await expect(menu.isVisible()).resolves.toBe(false);
          await expect(nav.isVisible()).resolves.toBe(true);
        }

        for (const [hash, en, bn] of [
          ...SCREENS,
          [long, /pay_/, /pay_/] as never,
          [`#/invoices/${paid.id}`, paid.number, paid.number] as never,
          ['#/customers/rahim-uddin', /rahim-uddin/, /rahim-uddin/] as never,
        ]) {
          await route(page, hash);
          await settled(page, lang === 'en' ? en : bn);
          const where = `${hash} ${lang} ${width}px`;
          expect(`${where}: ${await sidewaysScroll(page)}`).toBe(`${where}: 0`);
          if (width === 360) {
            const top = await page.getByRole('heading', { level: 1 }).boundingBox();
            expect(`${where}: ${top!.y <= 120}`).toBe(`${where}: true`);
          }
          await audit(page, where);
        }
        expect(problems).toEqual([]);
        await context.close();
      }
    }
  });

  it('at 360 px a table’s row actions are in reach without scrolling sideways', async () => {
    const { page, problems, context } = await open360or1280(360, 'en-US');
    await route(page, '#/refunds');
    await settled(page, 'Refunds');
    const approve = page.getByRole('button', { name: `Approve #${waitingRefundId}` });
    const box = (await approve.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    await route(page, '#/invoices');
    await settled(page, 'Invoices');
    for (const link of await page
      .getByRole('table', { name: 'Invoices' })
      .getByRole('link')
      .all()) {
      const b = (await link.boundingBox())!;
      expect(b.x + b.width).toBeLessThanOrEqual(360);
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it('speaks Bangla throughout: statuses, kinds and column headers in Bangla, Bengali digits, 24-hour times, the language switch named English and বাংলা', async () => {
    const { page, problems, context } = await open360or1280(1280, 'en-US');
    await page.getByRole('button', { name: 'বাংলা' }).click();
    for (const name of ['English', 'বাংলা'])
      await expect(page.getByRole('button', { name, exact: true }).isVisible()).resolves.toBe(true);
    const checks: [string, string, string[], string[]][] = [
      ['#/invoices', 'ইনভয়েস', ['পরিশোধিত', 'ইস্যু করা', 'নম্বর', 'মোট'], ['PAID', 'ISSUED']],
      [`#/invoices/${paid.id}`, paid.number, ['পরিশোধিত', 'সফল', '৳১,২৫,০০০.০০'], ['SUCCEEDED']],
      ['#/payments', 'পেমেন্ট', ['সফল', '৳১,২৫,০০০.০০', '৳৫,০০০.০০'], ['SUCCEEDED']],
      [`#/payments/${payment.id}`, /pay_/, ['সফল', 'অপেক্ষমাণ', '৳১০০.০০'], ['PENDING']],
      ['#/refunds', 'রিফান্ড', ['অনুমোদনের অপেক্ষায়', '৳১,০০০.০০', 'সফল'], ['PENDING']],
      ['#/notifications', 'নোটিফিকেশন', ['রসিদ', 'ইমেইল', 'প্রাপক'], ['RECEIPT', 'EMAIL']],
      ['#/overview', 'সারসংক্ষেপ', ['মোট সংগ্রহ', 'ফেরত', 'নিট'], []],
    ];
    for (const [hash, heading, present, absent] of checks) {
      await route(page, hash);
      await settled(page, heading);
      // Everything the screen loads is there (some of it comes after the heading).
      for (const p of present)
        await main(page).getByText(p).filter({ visible: true }).first().waitFor();
      const text = await main(page).innerText();
      for (const a of absent) expect(`${hash}: ${text}`).not.toContain(a);
      const plain = await plainText(page);
      // Every number in Bengali digits (identifiers and links excepted), never AM/PM.
      expect(`${hash}: ${plain.replace(/[^0-9]/g, '')}`).toBe(`${hash}: `);
      expect(plain).not.toMatch(/\b(AM|PM)\b/i);
    }
    // A time in Bangla: 24-hour, Bengali digits.
    await route(page, `#/payments/${payment.id}`);
    await settled(page, /pay_/);
    await expect(main(page).innerText()).resolves.toMatch(/[০-৯]{2}:[০-৯]{2}/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Overview: gross collected, refunded and net for today, 7 and 30 days, as the daily report answers them; the chart names its axes; Show as table gives each Dhaka day’s figures', async () => {
    const { page, problems, context } = await open360or1280(1280, 'en-US');
    await settled(page, 'Overview');
    // Drawn again, watched: its figures are the API's, refunds included (no refund list added up here).
    await route(page, '#/invoices');
    await settled(page, 'Invoices');
    const paths: string[] = [];
    page.on('request', (r) => paths.push(new URL(r.url()).pathname));
    const answer = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/v1/reports/daily-collections',
    );
    await route(page, '#/overview');
    await settled(page, 'Overview');
    const days = (await (await answer).json()).data;
    expect(days[days.length - 1]).toEqual({
      date: dhakaDay(),
      collectedMinor: 13_000_000,
      refundedMinor: 10_000,
      netMinor: 12_990_000,
      payments: 2,
    });
    const tile = page.locator('.tiles').first().locator('.tile').first();
    await tile.filter({ hasText: '৳1,30,000.00' }).waitFor();
    const today = await tile.innerText();
    expect(today).toMatch(
      /Today\s+Gross collected\s+৳1,30,000\.00\s+Refunded\s+৳100\.00\s+Net\s+৳1,29,900\.00/,
    );
    const chart = page.getByRole('figure', { name: 'Collected per day, last 30 days' });
    await expect(chart.innerText()).resolves.toMatch(/Taka per day[\s\S]*Day \(Asia\/Dhaka\)/);
    await expect(chart.innerText()).resolves.toContain('৳2,00,000.00');
    await expect(chart.locator('svg title').last().textContent()).resolves.toMatch(
      /Gross collected ৳1,30,000\.00, Refunded ৳100\.00, Net ৳1,29,900\.00/,
    );
    await page.getByRole('button', { name: 'Show as table' }).click();
    const table = page.getByRole('table', { name: 'Per day: gross collected, refunded and net' });
    await expect(table.getByRole('row').count()).resolves.toBe(31);
    const headers = await table.getByRole('columnheader').allInnerTexts();
    expect(headers).toEqual(['Day', 'Gross collected', 'Refunded', 'Net']);
    const first = await table.getByRole('row').nth(1).getByRole('cell').allInnerTexts();
    const [y, m, d] = dhakaDay().split('-').map(Number);
    const day = new Date(Date.UTC(y, m - 1, d)).toLocaleDateString('en-GB', {
      timeZone: 'UTC',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
    });
    expect(first).toEqual([day, '৳1,30,000.00', '৳100.00', '৳1,29,900.00']);
    expect(paths).toContain('/api/v1/reports/daily-collections');
    expect(paths).not.toContain('/api/v1/refunds');
    await audit(page, 'overview as a table');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Invoices: the create form takes several lines (Add line), the customer’s email, phone and language, and Send to customer; taka with up to two decimals', async () => {
    const { page, problems, context } = await open360or1280(1280, 'en-US');
    await route(page, '#/invoices');
    await settled(page, 'Invoices');
    await page.getByRole('link', { name: 'Create invoice' }).click();
    await settled(page, 'New invoice');
    await page.getByLabel('Customer reference').fill('selina-akter');
    await page.getByLabel('Customer name').fill('Selina Akter');
    await page.getByLabel('Customer email').fill('selina@example.com');
    await page.getByLabel('Customer phone').fill('01711111111');
    await page.getByLabel('Customer language').selectOption({ label: 'English' });
    await page.getByLabel('Description').fill('Consulting');
    await page.getByLabel('Quantity').fill('3');
    await page.getByLabel('Unit price (taka)').fill('1,250.50');
    await page.getByRole('button', { name: 'Add line' }).click();
    // The new line's first field has the focus.
    const line2 = page.getByRole('group', { name: 'Line 2' });
    await expect(focused(line2.getByLabel('Description'))).resolves.toBe(true);
    await line2.getByLabel('Description').fill('Travel');
    await line2.getByLabel('Unit price (taka)').fill('1.005');
    await page.getByRole('checkbox', { name: 'Send to customer' }).check();
    await audit(page, 'new invoice, two lines');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    // Three decimals are not taka: refused before anything is sent.
    await page.getByRole('alert').filter({ hasText: 'Line 2' }).waitFor();
    await line2.getByLabel('Unit price (taka)').fill('99.99');
    await expect(page.locator('.total').innerText()).resolves.toContain('৳3,851.49');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByLabel('Pay link').waitFor();
    const id = Number(new URL(page.url()).hash.split('/')[2]);
    const created = await t.http().get(`/api/v1/invoices/${id}`).set(asApp(app.TEST));
    expect(created.body.data).toMatchObject({
      customerReference: 'selina-akter',
      customerEmail: 'selina@example.com',
      customerPhone: '+8801711111111',
      customerLanguage: 'en',
      notifyCustomer: true,
      totalMinor: 385_149,
      lineItems: [
        expect.objectContaining({ description: 'Consulting', qty: 3, unitAmountMinor: 125_050 }),
        expect.objectContaining({ description: 'Travel', qty: 1, unitAmountMinor: 9_999 }),
      ],
    });
    const facts = await page.locator('.facts').innerText();
    expect(facts).toMatch(/Send to customer\s+Yes/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Notifications and payment detail name invoices by number, as link text', async () => {
    const { page, problems, context } = await open360or1280(1280, 'en-US');
    await route(page, '#/notifications');
    await settled(page, 'Notifications');
    const row = page
      .getByRole('table', { name: 'Notifications' })
      .getByRole('row')
      .filter({ hasText: 'RECEIPT' })
      .filter({ has: page.getByRole('link', { name: paid.number, exact: true }) });
    await row.first().waitFor();
    await route(page, `#/payments/${payment.id}`);
    await settled(page, /pay_/);
    await page.getByRole('link', { name: paid.number, exact: true }).click();
    await settled(page, paid.number);
    expect(problems).toEqual([]);
    await context.close();
  });

  /** Downloads the list's CSV with `Export CSV`: its text (byte order mark included) and lines. */
  async function exportCsv(page: Page): Promise<{ text: string; lines: string[] }> {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const text = readFileSync((await download.path())!, 'utf8');
    return {
      text,
      lines: text
        .replace(/^\uFEFF/, '')
        .trim()
        .split(/\r?\n/),
    };
  }
  /** Waits until `probe` answers `want` (lists reload after a filter applies). */
  async function until<T>(probe: () => Promise<T>, want: T, what: string): Promise<void> {
    let last: T | undefined;
    await eventually(
      async () => {
        last = await probe();
        return last === want;
      },
      10_000,
      `${what}: ${String(want)} (last ${String(last)})`,
    );
  }
  const rowsOf = (page: Page, table: string) =>
    page.getByRole('table', { name: table, exact: true }).locator('tbody tr');

  it('Invoices, Payments and Refunds: From and To (Dhaka days), Search, and Export CSV of what they select', async () => {
    const { page, problems, context } = await open360or1280(1280, 'en-US');
    const today = dhakaDay();

    // Invoices: Search by number, then by customer email; From tomorrow selects nothing.
    await route(page, '#/invoices');
    await settled(page, 'Invoices');
    const invoices = rowsOf(page, 'Invoices');
    await expect(invoices.count()).resolves.toBe(4);
    await page.getByLabel('Search').fill(other.number);
    await page.getByLabel('Search').press('Enter');
    await until(() => invoices.count(), 1, 'invoices found by number');
    await invoices.filter({ hasText: other.number }).waitFor();
    let csv = await exportCsv(page);
    expect(csv.text.startsWith('\uFEFF')).toBe(true);
    expect(csv.lines[0].split(',')[0]).toBe('number');
    expect(csv.lines).toHaveLength(2);
    expect(csv.lines[1].startsWith(`${other.number},`)).toBe(true);
    await page.getByLabel('Search').fill('rahim@example.com');
    await page.getByLabel('Search').press('Enter');
    await until(() => invoices.count(), 2, 'invoices found by email');
    expect((await invoices.allInnerTexts()).join(' ')).toMatch(
      new RegExp(`${open.number}[\\s\\S]*${paid.number}`),
    );
    await page.getByLabel('From').fill(dhakaDay(1));
    await invoices.filter({ hasText: 'No rows' }).waitFor();
    await page.getByLabel('From').fill(today);
    await page.getByLabel('To', { exact: true }).fill(today);
    await invoices.nth(1).waitFor();
    csv = await exportCsv(page);
    expect(csv.lines).toHaveLength(3);
    await audit(page, 'invoices filtered');

    // Payments: Search by reference; To yesterday selects nothing; the CSV follows the filters.
    await route(page, '#/payments');
    await settled(page, 'Payments');
    const payments = rowsOf(page, 'Payments');
    await expect(payments.count()).resolves.toBe(2);
    await page.getByLabel('Search').fill(otherPayment.reference);
    await page.getByLabel('Search').press('Enter');
    await until(() => payments.count(), 1, 'payments found by reference');
    await payments.filter({ hasText: otherPayment.reference }).waitFor();
    csv = await exportCsv(page);
    expect(csv.lines[0].split(',')[0]).toBe('id');
    expect(csv.lines).toHaveLength(2);
    expect(csv.lines[1]).toContain(otherPayment.reference);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Search').press('Enter');
    await page.getByLabel('To', { exact: true }).fill(dhakaDay(-1));
    await payments.filter({ hasText: 'No rows' }).waitFor();
    csv = await exportCsv(page);
    expect(csv.lines).toHaveLength(1);
    await audit(page, 'payments filtered');

    // Refunds: every refund, searched by the invoice's number; the CSV has both.
    await route(page, '#/refunds');
    await settled(page, 'Refunds');
    const refunds = rowsOf(page, 'Refunds');
    await expect(refunds.count()).resolves.toBe(2);
    await page.getByLabel('Search').fill(other.number);
    await page.getByLabel('Search').press('Enter');
    await refunds.filter({ hasText: 'No rows' }).waitFor();
    await page.getByLabel('Search').fill(paid.number);
    await page.getByLabel('Search').press('Enter');
    await until(() => refunds.count(), 2, 'refunds found by invoice number');
    await refunds.first().getByRole('link', { name: paid.number }).waitFor();
    await page.getByLabel('From').fill(today);
    await page.getByLabel('To', { exact: true }).fill(today);
    csv = await exportCsv(page);
    expect(csv.lines[0].split(',')[0]).toBe('id');
    expect(csv.lines).toHaveLength(3);
    await audit(page, 'refunds filtered');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Customers: a list searched by reference, name, email or phone (Search), and a detail page with invoices, payments, subscriptions and entitlements', async () => {
    const { page, problems, context } = await open360or1280(360, 'en-US');
    await route(page, '#/customers');
    await settled(page, 'Customers');
    const customers = rowsOf(page, 'Customers');
    await until(async () => (await customers.count()) >= 2, true, 'customers');
    await page.getByLabel('Search').fill('karim@example.com');
    await page.getByLabel('Search').press('Enter');
    await until(() => customers.count(), 1, 'customers found');
    await page.getByLabel('Search').fill('Rahim');
    await page.getByLabel('Search').press('Enter');
    await until(() => customers.count(), 1, 'customers found');
    await customers.getByRole('link', { name: 'rahim-uddin' }).click();
    await settled(page, /rahim-uddin/);
    for (const name of ['Invoices', 'Payments', 'Subscriptions', 'Entitlements'])
      await page.getByRole('table', { name }).waitFor();
    const invoices = page.getByRole('table', { name: 'Invoices' });
    await invoices.getByRole('link', { name: paid.number }).waitFor();
    await invoices.getByRole('link', { name: open.number }).waitFor();
    await page
      .getByRole('table', { name: 'Payments' })
      .getByRole('link', { name: payment.reference })
      .waitFor();
    expect(await sidewaysScroll(page)).toBe(0);
    await audit(page, 'customer detail 360px');
    expect(problems).toEqual([]);
    await context.close();
  });
});
