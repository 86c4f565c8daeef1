import { appFixture } from '../support/app-fixture';
import { asApp, CreatedApp } from '../support/factories';
import { TestApp } from '../support/test-app';

/**
 * Regression: the TEST-mode guard ran before the key guard (class decorators
 * apply bottom-up), so it never saw the app and refused every call, TEST keys
 * included, and answered 403 instead of 401 without credentials.
 */
describe('test helpers: authentication and the TEST-mode check', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  async function pendingPayment(): Promise<number> {
    const res = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 5000, customerReference: 'cust-th' });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  it('a TEST key can settle and expire its payments', async () => {
    const paid = await pendingPayment();
    const settle = await t
      .http()
      .post(`/api/v1/test-helpers/payments/${paid}/settle`)
      .set(asApp(app.TEST))
      .send({ outcome: 'succeeded' });
    expect(settle.status).toBe(200);
    expect(settle.body.data).toMatchObject({ id: paid, status: 'SUCCEEDED' });

    const late = await pendingPayment();
    const expire = await t
      .http()
      .post(`/api/v1/test-helpers/payments/${late}/expire`)
      .set(asApp(app.TEST));
    expect(expire.status).toBe(200);
    expect(expire.body.data).toMatchObject({ id: late, status: 'EXPIRED' });
  });

  it('a LIVE key gets 403 TEST_MODE_ONLY whatever the id', async () => {
    for (const id of ['1', '999999', 'abc']) {
      const res = await t
        .http()
        .post(`/api/v1/test-helpers/payments/${id}/expire`)
        .set(asApp(app.LIVE));
      expect(res.status).toBe(403);
      expect(res.body.meta.errorCode).toBe('TEST_MODE_ONLY');
    }
  });

  it('without credentials it is 401, wrong credentials 401', async () => {
    const none = await t.http().post('/api/v1/test-helpers/payments/1/expire');
    expect(none.status).toBe(401);
    expect(none.body.meta.errorCode).toBe('AUTHENTICATION_REQUIRED');
    const wrong = await t
      .http()
      .post('/api/v1/test-helpers/payments/1/expire')
      .set({ 'X-Api-Key': app.TEST.apiKey, 'X-Api-Secret': 'sk_test_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
  });
});
