import { appFixture } from '../support/app-fixture';
import { asApp, CreatedApp } from '../support/factories';
import { TestApp } from '../support/test-app';

/** Customer phone numbers: Bangladeshi mobiles in any common form, stored as +8801XXXXXXXXX. */
describe('customer phone numbers', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  const pay = (customerPhone: string, ref: string) =>
    t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 5000, customerReference: ref, customerPhone });

  it.each([
    ['01711111111', '+8801711111111'],
    ['8801811111111', '+8801811111111'],
    ['+880 1911-111111', '+8801911111111'],
    ['+447911123456', '+447911123456'],
  ])('accepts %s and stores %s', async (phone, stored) => {
    const ref = `ph-${stored.slice(1)}`;
    expect((await pay(phone, ref)).status).toBe(201);
    const row = await t.db.query(
      `SELECT phone FROM customers WHERE app_id = $1 AND external_id = $2`,
      [app.id, ref],
    );
    expect(row.rows[0].phone).toBe(stored);
  });

  it.each(['1711111111', '01211111111', '447911123456', '+12', 'call me'])(
    'refuses %s with 400 naming the accepted forms',
    async (phone) => {
      const res = await pay(phone, 'ph-bad');
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details).toEqual([
        {
          field: 'customerPhone',
          message: expect.stringContaining('01XXXXXXXXX, 8801XXXXXXXXX or +8801XXXXXXXXX'),
        },
      ]);
    },
  );
});
