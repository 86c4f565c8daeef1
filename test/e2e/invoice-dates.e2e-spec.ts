import { appFixture } from '../support/app-fixture';
import { CreatedApp } from '../support/factories';
import { createInvoice } from '../support/payments';
import { TestApp } from '../support/test-app';

/**
 * Issue 43 (tried as a new user would): every calendar date of an invoice is
 * an Asia/Dhaka date (decisions 5). An invoice created at 21:38 UTC, 03:38
 * the next morning in Dhaka, is issued that next day and by default falls
 * due 7 days after it, and its pay page says so.
 */
describe('invoice dates are Dhaka dates', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  it('created at 2027-05-04T21:38Z (03:38 on 5 May in Dhaka): issued 5 May, due 12 May', async () => {
    t.clock.advance(Date.parse('2027-05-04T21:38:00Z') - t.clock.nowMs());
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'dawn' });
    expect(invoice.dueDate).toBe('2027-05-12');
    const page = await t.http().get(new URL(invoice.payableUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('2027-05-05');
    expect(page.text).not.toContain('2027-05-04');
    // A due date before the Dhaka issue day is refused; the issue day itself is fine.
    const early = await t
      .http()
      .post('/api/v1/invoices')
      .set({ 'X-Api-Key': app.TEST.apiKey, 'X-Api-Secret': app.TEST.apiSecret })
      .send({
        customerReference: 'dawn',
        dueDate: '2027-05-04',
        lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 100 }],
      });
    expect(early.status).toBe(400);
    expect((await createInvoice(t, app.TEST, { dueDate: '2027-05-05' })).dueDate).toBe(
      '2027-05-05',
    );
  });
});
