import { adminWith, bearer, createApp, CreatedApp, login } from '../support/factories';
import { createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * GET /api/v1/reports/daily-collections: the Overview's bar chart (decisions
 * section 15), as HTTP shows it: its default, validation, who may read it.
 * The sums per Asia/Dhaka day and the partition are proven on the service in
 * test/medium/money-counting.medium-spec.ts.
 */
describe('daily collections', () => {
  let t: TestApp;
  let app: CreatedApp;
  let reader: { email: string };

  const daily = (creds: CreatedApp['TEST'], query = '') =>
    t
      .http()
      .get(`/api/v1/reports/daily-collections${query}`)
      .set({ 'X-Api-Key': creds.apiKey, 'X-Api-Secret': creds.apiSecret });

  async function captured(creds: CreatedApp['TEST'], amountMinor: number) {
    const p = await createPayment(t, creds, { amountMinor });
    const res = await settle(t, creds, p.id);
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    reader = await adminWith(t, ['invoices:read']);
    // 00:30 on 30 November in Dhaka (UTC+6), still the 29th in UTC.
    t.clock.freeze(new Date('2026-11-29T18:30:00.000Z'));
    await captured(app.TEST, 20_000);
  });
  afterAll(() => t.close());

  it('without days it answers 30 days ending today, oldest first', async () => {
    const res = await daily(app.TEST);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(30);
    expect(res.body.data[29]).toEqual({ date: '2026-11-30', collectedMinor: 20_000, payments: 1 });
    expect(res.body.data[0]).toEqual({ date: '2026-11-01', collectedMinor: 0, payments: 0 });
    expect(res.body.pagination).toMatchObject({ totalElements: 30 });
  });

  it.each(['0', '91', 'abc', '1.5'])('days=%s is 400 VALIDATION_FAILED', async (days) => {
    const res = await daily(app.TEST, `?days=${days}`);
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
  });

  it('an admin with invoices:read reads it for an app and mode', async () => {
    const res = await t
      .http()
      .get('/api/v1/reports/daily-collections?days=2')
      // A session opened now, on the frozen test clock.
      .set({
        ...bearer(await login(t, reader.email, 'admin-password-123')),
        'X-App-Id': String(app.id),
        'X-Mode': 'TEST',
      });
    expect(res.status).toBe(200);
    expect(res.body.data[1]).toEqual({ date: '2026-11-30', collectedMinor: 20_000, payments: 1 });
  });
});
