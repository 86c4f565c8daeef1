import { adminWith, bearer, createApp, CreatedApp, login } from '../support/factories';
import { createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/** GET /api/v1/reports/daily-collections: the Overview's bar chart (decisions section 15). */
describe('daily collections', () => {
  let t: TestApp;
  let app: CreatedApp;
  let other: CreatedApp;
  let reader: { email: string };

  const daily = (creds: CreatedApp['TEST'], query = '') =>
    t
      .http()
      .get(`/api/v1/reports/daily-collections${query}`)
      .set({ 'X-Api-Key': creds.apiKey, 'X-Api-Secret': creds.apiSecret });

  async function captured(creds: CreatedApp['TEST'], amountMinor: number, outcome = 'succeeded') {
    const p = await createPayment(t, creds, { amountMinor });
    const res = await settle(t, creds, p.id, outcome as 'succeeded');
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    other = await createApp(t);
    reader = await adminWith(t, ['invoices:read']);
    // 23:30 on 29 November in Dhaka (UTC+6).
    t.clock.freeze(new Date('2026-11-29T17:30:00.000Z'));
    await captured(app.TEST, 10_000);
    await captured(app.TEST, 5_050);
    await captured(app.TEST, 99_999, 'failed');
    await captured(other.TEST, 777_777);
    // One hour later it is 00:30 on 30 November in Dhaka, still the 29th in UTC.
    t.clock.advanceMinutes(60);
    await captured(app.TEST, 20_000);
  });
  afterAll(() => t.close());

  it('sums captures per Asia/Dhaka day, oldest first, days without any at 0', async () => {
    const res = await daily(app.TEST, '?days=3');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { date: '2026-11-28', collectedMinor: 0, payments: 0 },
      { date: '2026-11-29', collectedMinor: 15_050, payments: 2 },
      { date: '2026-11-30', collectedMinor: 20_000, payments: 1 },
    ]);
  });

  it('defaults to 30 days ending today, and keeps to its partition', async () => {
    const res = await daily(app.TEST);
    expect(res.body.data).toHaveLength(30);
    expect(res.body.data[29].date).toBe('2026-11-30');
    expect(res.body.data[0].date).toBe('2026-11-01');
    const total = res.body.data.reduce(
      (s: number, d: { collectedMinor: number }) => s + d.collectedMinor,
      0,
    );
    expect(total).toBe(35_050);
    const live = await daily(app.LIVE, '?days=3');
    expect(live.body.data.map((d: { collectedMinor: number }) => d.collectedMinor)).toEqual([
      0, 0, 0,
    ]);
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
      // A session opened now, on the test clock that moved past the first one's hour.
      .set({
        ...bearer(await login(t, reader.email, 'admin-password-123')),
        'X-App-Id': String(app.id),
        'X-Mode': 'TEST',
      });
    expect(res.status).toBe(200);
    expect(res.body.data[1]).toEqual({ date: '2026-11-30', collectedMinor: 20_000, payments: 1 });
  });
});
