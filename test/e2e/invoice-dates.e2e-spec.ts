import { appFixture } from '../support/app-fixture';
import { CreatedApp } from '../support/factories';
import { createInvoice } from '../support/payments';
import { TestApp } from '../support/test-app';

/**
 * Issue 43 (tried as a new user would): every calendar date of an invoice is
 * an Asia/Dhaka date (decisions 5). An invoice created at 21:38 UTC, 03:38
 * the next morning in Dhaka, is issued that next day, and its pay page says
 * so. The dates themselves (due 7 Dhaka days after issue, a due date before
 * the Dhaka issue day refused) are proven on the service in
 * test/medium/invoices.medium-spec.ts.
 */
describe('invoice dates are Dhaka dates', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  it('created at 2027-05-04T21:38Z (03:38 on 5 May in Dhaka): the pay page shows issued 5 May, due 12 May, never 4 May', async () => {
    t.clock.advance(Date.parse('2027-05-04T21:38:00Z') - t.clock.nowMs());
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'dawn' });
    const page = await t.http().get(new URL(invoice.payableUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('2027-05-05');
    expect(page.text).toContain('2027-05-12');
    expect(page.text).not.toContain('2027-05-04');
  });
});
