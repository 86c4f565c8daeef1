import { appFixture } from '../support/app-fixture';
import { asApp, CreatedApp } from '../support/factories';
import { TestApp } from '../support/test-app';

/**
 * Every payment and invoice names its customer by reference (optionally with
 * details): one customer per reference, also when a new customer's first
 * requests race through the API. The upsert's rules (one customer per
 * reference, details filled in, a known customer with no new details read
 * and not rewritten, so not waiting on a lock of their row) are proven on
 * the services in test/medium/customers.medium-spec.ts.
 */
describe('customers named by payments and invoices', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  const pay = (ref: string, details: Record<string, string> = {}) =>
    t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 5000, customerReference: ref, ...details });

  it('first requests for a new customer at once make one customer, which all their payments name', async () => {
    const ref = 'cu-race';
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => pay(ref, i % 2 ? { customerName: 'Nadia' } : {})),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const { rows } = await t.db.query(
      `SELECT id, name FROM customers WHERE app_id = $1 AND mode = 'TEST' AND external_id = $2`,
      [app.id, ref],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].name).toBe('Nadia');
    const { rows: payments } = await t.db.query(
      `SELECT DISTINCT customer_id FROM payments WHERE app_id = $1 AND reference = ANY($2)`,
      [app.id, answers.map((a) => a.body.data.reference)],
    );
    expect(payments).toEqual([{ customer_id: rows[0].id }]);
  });
});
