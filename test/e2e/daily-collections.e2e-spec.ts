import { adminWith, asApp, bearer, createApp, CreatedApp, login } from '../support/factories';
import { createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * GET /api/v1/reports/daily-collections: the Overview's figures and bar
 * chart (decisions sections 15 and 20), as HTTP shows it: its default,
 * each day's collected, refunded and net, the fields documented, validation,
 * the partition (the key's app and mode, an admin's X-App-Id and X-Mode)
 * and who may read it. The sums per Asia/Dhaka day (a refund on the day it
 * succeeded, Dhaka midnight) are proven on the services in
 * test/medium/money-counting.medium-spec.ts.
 */
describe('daily collections', () => {
  let t: TestApp;
  let app: CreatedApp;
  let otherApp: CreatedApp;
  let reader: { email: string };

  const daily = (creds: CreatedApp['TEST'], query = '') =>
    t.http().get(`/api/v1/reports/daily-collections${query}`).set(asApp(creds));

  async function captured(creds: CreatedApp['TEST'], amountMinor: number): Promise<number> {
    const p = await createPayment(t, creds, { amountMinor });
    const res = await settle(t, creds, p.id);
    expect(res.status).toBe(200);
    return p.id as number;
  }
  async function refunded(creds: CreatedApp['TEST'], paymentId: number, amountMinor: number) {
    const res = await t
      .http()
      .post(`/api/v1/payments/${paymentId}/refunds`)
      .set(asApp(creds))
      .send({ amountMinor, reason: 'Returned' });
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('SUCCEEDED');
  }
  const day = (date: string, collected: number, refundedMinor: number, payments: number) => ({
    date,
    collectedMinor: collected,
    refundedMinor,
    netMinor: collected - refundedMinor,
    payments,
  });

  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    otherApp = await createApp(t);
    reader = await adminWith(t, ['invoices:read']);
    // 23:30 on 29 November in Dhaka (UTC+6).
    t.clock.freeze(new Date('2026-11-29T17:30:00.000Z'));
    const yesterday = await captured(app.TEST, 12_000);
    // 00:30 on 30 November in Dhaka, still the 29th in UTC: yesterday's capture refunded in part.
    t.clock.freeze(new Date('2026-11-29T18:30:00.000Z'));
    await captured(app.TEST, 20_000);
    await refunded(app.TEST, yesterday, 5_000);
    // Another app collects and refunds all of it the same day.
    await refunded(otherApp.TEST, await captured(otherApp.TEST, 7_000), 7_000);
  });
  afterAll(() => t.close());

  it('without days it answers 30 days ending today, oldest first: collected, refunded (on the day it succeeded) and net', async () => {
    const res = await daily(app.TEST);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(30);
    expect(res.body.data[29]).toEqual(day('2026-11-30', 20_000, 5_000, 1));
    expect(res.body.data[29].netMinor).toBe(15_000);
    expect(res.body.data[28]).toEqual(day('2026-11-29', 12_000, 0, 1));
    expect(res.body.data[0]).toEqual(day('2026-11-01', 0, 0, 0));
    expect(res.body.pagination).toMatchObject({ totalElements: 30 });
  });

  it('documents refundedMinor and netMinor as int64 poisha, always present', async () => {
    const doc = (await t.http().get('/docs-json')).body;
    const schema = doc.components.schemas.DailyCollectionDto;
    expect(schema.required).toEqual(
      expect.arrayContaining(['date', 'collectedMinor', 'refundedMinor', 'netMinor', 'payments']),
    );
    for (const field of ['collectedMinor', 'refundedMinor', 'netMinor'])
      expect(schema.properties[field]).toMatchObject({ type: 'integer', format: 'int64' });
    expect(schema.properties.refundedMinor.description).toContain('SUCCEEDED');
    expect(schema.properties.netMinor.description).toContain('collectedMinor - refundedMinor');
    const op = doc.paths['/api/v1/reports/daily-collections'].get;
    expect(op.description).toContain('refundedMinor');
    expect(op.description).toContain('AMOUNT_OUT_OF_RANGE');
  });

  it.each(['0', '91', 'abc', '1.5'])('days=%s is 400 VALIDATION_FAILED', async (days) => {
    const res = await daily(app.TEST, `?days=${days}`);
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
  });

  it("keeps to the key's app and mode: another app's refunds and the LIVE key's are their own", async () => {
    const other = await daily(otherApp.TEST, '?days=2');
    expect(other.status).toBe(200);
    expect(other.body.data).toEqual([
      day('2026-11-29', 0, 0, 0),
      day('2026-11-30', 7_000, 7_000, 1),
    ]);
    const live = await daily(app.LIVE, '?days=2');
    expect(live.status).toBe(200);
    expect(live.body.data).toEqual([day('2026-11-29', 0, 0, 0), day('2026-11-30', 0, 0, 0)]);
  });

  it('an admin with invoices:read reads it for an app and mode (X-App-Id, X-Mode)', async () => {
    // A session opened now, on the frozen test clock.
    const session = bearer(await login(t, reader.email, 'admin-password-123'));
    const as = (mode: 'TEST' | 'LIVE') =>
      t
        .http()
        .get('/api/v1/reports/daily-collections?days=2')
        .set({ ...session, 'X-App-Id': String(app.id), 'X-Mode': mode });
    const res = await as('TEST');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      day('2026-11-29', 12_000, 0, 1),
      day('2026-11-30', 20_000, 5_000, 1),
    ]);
    const live = await as('LIVE');
    expect(live.status).toBe(200);
    expect(live.body.data.map((d: { refundedMinor: number }) => d.refundedMinor)).toEqual([0, 0]);
  });
});
