import { runDocWalk } from '../support/doc-walk';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * From the docs alone: sell a monthly plan with a 7-day trial and watch
 * TRIALING -> ACTIVE -> renewal -> PAST_DUE -> ACTIVE, with the customer's
 * entitlements at each step. The commands run as typed (only the base URL
 * differs) and must print what the guide says they print.
 */
describe('the subscriptions guide walk, as a script', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      config: { adminEmail: 'admin@example.com', adminPassword: 'change-me-now' },
    });
  });
  afterAll(() => t.close());

  it('prints exactly what docs/subscriptions.md says', async () => {
    const { printed, promised } = await runDocWalk(
      t,
      'docs/subscriptions.md',
      'Sell a monthly plan',
    );
    expect(printed).toEqual(promised);
    const rows = await t.db.query(
      `SELECT type, data FROM events WHERE type LIKE 'subscription.%' ORDER BY id`,
    );
    // Every event says what it is about without a call back.
    for (const { type, data } of rows.rows as { type: string; data: Record<string, unknown> }[]) {
      expect(data).toMatchObject({
        subscription_id: expect.any(Number),
        customer_reference: 'cust_42',
      });
      if (type === 'subscription.entitlements_updated') {
        expect(Object.keys(data).sort()).toEqual(
          ['customer_reference', 'entitlements', 'granted', 'revoked', 'subscription_id'].sort(),
        );
        continue;
      }
      expect(data).toMatchObject({
        status: type.slice('subscription.'.length),
        previous_status: expect.stringMatching(/^[a-z_]+$/),
        subscription_status: expect.stringMatching(/^[A-Z_]+$/),
        price_id: expect.any(Number),
        product_id: expect.any(Number),
        amount_minor: 50000,
        currency: 'BDT',
        cancel_at_period_end: false,
      });
      for (const date of ['current_period_start', 'next_billing_date', 'trial_end_date'])
        expect(data[date] === null || /^\d{4}-\d{2}-\d{2}$/.test(String(data[date]))).toBe(true);
      if (/created|payment_succeeded|renewed|past_due/.test(type))
        expect(data.invoice_id).toEqual(expect.any(Number));
      if (/payment_succeeded|renewed/.test(type))
        expect(data.payment_id).toEqual(expect.any(Number));
    }
    expect(rows.rows.map((r) => r.type)).toEqual([
      'subscription.created',
      'subscription.entitlements_updated',
      'subscription.trial_will_end',
      'subscription.payment_succeeded',
      'subscription.activated',
      'subscription.past_due',
      'subscription.entitlements_updated',
      'subscription.payment_succeeded',
      'subscription.activated',
      'subscription.entitlements_updated',
      'subscription.renewed',
    ]);
  }, 60_000);
});
