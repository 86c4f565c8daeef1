import { appFixture } from '../support/app-fixture';
import { asApp, CreatedApp } from '../support/factories';
import { TestApp } from '../support/test-app';

/**
 * Customer phone numbers over HTTP: a number in none of the accepted forms is
 * 400 naming customerPhone and the forms. That the accepted forms are stored
 * as +8801XXXXXXXXX is proven in test/medium/customers.medium-spec.ts (the
 * forms themselves in src/customers/phone.spec.ts).
 */
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
