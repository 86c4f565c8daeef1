import type { Browser, Page } from 'playwright-core';

import {
  audit,
  launchChromium,
  openDashboard,
  route,
  settled,
  signIn,
} from '../support/dashboard-browser';
import { adminWith, asApp, createApp, type CreatedApp } from '../support/factories';
import { captureNoRefund, NO_REFUND, NoRefundGatewayModule } from '../support/no-refund-gateway';
import { createPayment } from '../support/payments';
import { createTestApp, SUPER_ADMIN, type TestApp } from '../support/test-app';

jest.setTimeout(240_000);

/**
 * The Refunds screen with manual refunds (decisions section 22), in
 * Chromium: a PENDING refund of a gateway with no refund call (the test
 * gateway `norefund`, Nagad's stand-in) shows `Manual`; an admin with
 * refunds:approve gets `Mark refunded`, which asks for the optional
 * reference and completes it (POST /admin/refunds/{id}/complete); an admin
 * without it sees no button.
 */
describe('dashboard: manual refunds (Chromium)', () => {
  let browser: Browser;
  let t: TestApp;
  let app: CreatedApp;
  let seq = 0;

  beforeAll(async () => {
    browser = await launchChromium();
    t = await createTestApp({ imports: [NoRefundGatewayModule] });
    app = await createApp(t, 'Nagad Shop');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function manualRefund(): Promise<number> {
    const p = await createPayment(t, app.TEST, {
      amountMinor: 20_000,
      customerReference: `dm-${++seq}`,
      gateway: NO_REFUND,
    });
    await captureNoRefund(t.app, t.db, p.id);
    const r = await t
      .http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(app.TEST))
      .send({ reason: 'Order cancelled' });
    expect(r.body.data).toMatchObject({ status: 'PENDING', manual: true });
    return r.body.data.id;
  }

  async function refundsScreen(page: Page, email: string, password: string): Promise<void> {
    await signIn(page, t.baseUrl, email, password);
    await page.getByRole('combobox', { name: 'App' }).selectOption({ label: 'Nagad Shop' });
    await page
      .getByRole('radiogroup', { name: 'Mode' })
      .getByRole('radio', { name: 'TEST' })
      .check();
    await route(page, '#/refunds');
    await settled(page, 'Refunds');
  }

  it('Manual and Mark refunded (with its reference) for refunds:approve; the refund ends SUCCEEDED, audited', async () => {
    const id = await manualRefund();
    const { page, problems } = await openDashboard(browser);
    await refundsScreen(page, SUPER_ADMIN.email, SUPER_ADMIN.password);
    const row = page
      .getByRole('table', { name: 'Refunds', exact: true })
      .getByRole('row')
      .filter({ has: page.getByRole('button', { name: `Mark refunded #${id}` }) });
    await row.getByText('Manual', { exact: true }).waitFor();
    await row.getByRole('button', { name: `Mark refunded #${id}` }).click();
    const form = page.getByRole('form', { name: `Mark refunded #${id}` });
    await form.getByLabel('Reference (optional)').fill('  NGD-5521 ');
    await audit(page, 'refunds, marking one refunded');
    await form.getByRole('button', { name: 'Mark refunded', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Done' }).waitFor();
    await form.waitFor({ state: 'detached' });
    // The list shows it SUCCEEDED, with no button any more.
    await page
      .getByRole('table', { name: 'Refunds', exact: true })
      .getByRole('row')
      .filter({ hasText: 'SUCCEEDED' })
      .filter({ hasText: 'Order cancelled' })
      .first()
      .waitFor();
    await expect(page.getByRole('button', { name: `Mark refunded #${id}` }).count()).resolves.toBe(
      0,
    );
    const rows = await t.db.query(
      `SELECT r.status, r.gateway_refund_id, a.actor_email FROM refunds r
         JOIN audit_events a ON a.target_type = 'refund' AND a.target_id = r.id::text AND a.action = 'refund.completed'
        WHERE r.id = $1`,
      [id],
    );
    expect(rows.rows).toEqual([
      { status: 'SUCCEEDED', gateway_refund_id: 'NGD-5521', actor_email: SUPER_ADMIN.email },
    ]);
    expect(problems).toEqual([]);
  });

  it('without refunds:approve: Manual shown, no Mark refunded', async () => {
    const id = await manualRefund();
    const reader = await adminWith(t, ['apps:read', 'invoices:read', 'invoices:write']);
    const { page, problems } = await openDashboard(browser);
    await refundsScreen(page, reader.email, 'admin-password-123');
    const row = page
      .getByRole('table', { name: 'Refunds', exact: true })
      .getByRole('row')
      .filter({ has: page.getByText(String(id), { exact: true }) });
    await row.getByText('Manual', { exact: true }).waitFor();
    await expect(row.getByRole('button').count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  });
});
