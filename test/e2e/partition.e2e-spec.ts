import {
  asApp,
  bearer,
  createApp,
  CreatedApp,
  Credentials,
  superAdminToken,
} from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

describe('TEST/LIVE partition', () => {
  let t: TestApp;
  let a: CreatedApp;
  let b: CreatedApp;
  let testBenefitId: number;
  let liveBenefitId: number;

  const get = (creds: Credentials, id: number) =>
    t.http().get(`/api/v1/benefits/${id}`).set(asApp(creds));
  const activate = (creds: Credentials, id: number) =>
    t.http().post(`/api/v1/benefits/${id}/activate`).set(asApp(creds));
  const listIds = async (creds: Credentials) => {
    const res = await t.http().get('/api/v1/benefits?paginate=false').set(asApp(creds));
    expect(res.status).toBe(200);
    return res.body.data.map((x: { id: number }) => x.id);
  };

  beforeAll(async () => {
    t = await createTestApp();
    a = await createApp(t, 'Partition A');
    b = await createApp(t, 'Partition B');
    const created = await t
      .http()
      .post('/api/v1/benefits')
      .set(asApp(a.TEST))
      .send({ lookupKey: 'gold', name: 'Gold (test)' });
    expect(created.status).toBe(201);
    expect(created.body.data.mode).toBe('TEST');
    testBenefitId = created.body.data.id;
    // The same lookupKey is free in the other mode: the partitions are separate.
    const live = await t
      .http()
      .post('/api/v1/benefits')
      .set(asApp(a.LIVE))
      .send({ lookupKey: 'gold', name: 'Gold (live)' });
    expect(live.status).toBe(201);
    expect(live.body.data.mode).toBe('LIVE');
    liveBenefitId = live.body.data.id;
  });
  afterAll(() => t.close());

  it('the owner key in the same mode sees the record', async () => {
    const res = await get(a.TEST, testBenefitId);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: testBenefitId, name: 'Gold (test)', mode: 'TEST' });
  });

  it.each([
    ['the LIVE key of the same app', () => a.LIVE],
    ["another app's TEST key", () => b.TEST],
    ["another app's LIVE key", () => b.LIVE],
  ])(
    'a TEST record is 404 RESOURCE_NOT_FOUND with %s (GET and activate)',
    async (_label, creds) => {
      for (const res of [
        await get(creds(), testBenefitId),
        await activate(creds(), testBenefitId),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
        expect(res.body.meta.message).toBe('Benefit not found');
      }
      const row = await t.db.query('SELECT active FROM benefits WHERE id = $1', [testBenefitId]);
      expect(row.rows[0].active).toBe(false);
    },
  );

  it('a record that exists elsewhere answers exactly like one that does not exist', async () => {
    const elsewhere = await get(b.TEST, testBenefitId);
    const nowhere = await get(b.TEST, 999_999);
    expect(elsewhere.status).toBe(nowhere.status);
    expect(elsewhere.body.meta.message).toBe(nowhere.body.meta.message);
  });

  it('a LIVE record is 404 with the TEST key', async () => {
    expect((await get(a.TEST, liveBenefitId)).status).toBe(404);
    expect((await activate(a.TEST, liveBenefitId)).status).toBe(404);
    expect((await get(a.LIVE, liveBenefitId)).status).toBe(200);
  });

  it("lists show only the key's own app and mode", async () => {
    await t
      .http()
      .post('/api/v1/benefits')
      .set(asApp(b.TEST))
      .send({ lookupKey: 'gold', name: 'B gold' });
    expect(await listIds(a.TEST)).toEqual([testBenefitId]);
    expect(await listIds(a.LIVE)).toEqual([liveBenefitId]);
    const bTest = await listIds(b.TEST);
    expect(bTest).toHaveLength(1);
    expect(bTest).not.toContain(testBenefitId);
    expect(await listIds(b.LIVE)).toEqual([]);
  });

  it('the mode comes only from the key: a mode in the body is refused, not obeyed', async () => {
    const res = await t
      .http()
      .post('/api/v1/benefits')
      .set(asApp(a.TEST))
      .send({ lookupKey: 'silver', name: 'Silver', mode: 'LIVE' });
    expect(res.status).toBe(400);
    expect(res.body.meta.details).toEqual([
      { field: 'mode', message: 'mode is not a known field' },
    ]);
  });

  it('activation with the owner key works and is idempotent', async () => {
    const first = await activate(a.TEST, testBenefitId);
    expect(first.status).toBe(200);
    expect(first.body.data.active).toBe(true);
    expect((await activate(a.TEST, testBenefitId)).body.data.active).toBe(true);
    expect((await get(a.LIVE, liveBenefitId)).body.data.active).toBe(false);
  });

  it('admin creates take the mode from the query, and land in that partition only', async () => {
    const token = await superAdminToken(t);
    const res = await t
      .http()
      .post(`/api/v1/admin/benefits?applicationId=${b.id}&mode=LIVE`)
      .set(bearer(token))
      .send({ lookupKey: 'vip', name: 'VIP' });
    expect(res.status).toBe(201);
    expect(res.body.data.mode).toBe('LIVE');
    expect((await get(b.LIVE, res.body.data.id)).status).toBe(200);
    expect((await get(b.TEST, res.body.data.id)).status).toBe(404);
    expect((await get(a.LIVE, res.body.data.id)).status).toBe(404);
    const row = await t.db.query('SELECT app_id, mode FROM benefits WHERE id = $1', [
      res.body.data.id,
    ]);
    expect(row.rows[0]).toEqual({ app_id: b.id, mode: 'LIVE' });

    const adminActivate = await t
      .http()
      .post(`/api/v1/admin/benefits/${res.body.data.id}/activate`)
      .set(bearer(token));
    expect(adminActivate.status).toBe(200);
    expect(adminActivate.body.data).toMatchObject({ active: true, mode: 'LIVE' });
  });

  it('admin creates need a valid mode and an existing app', async () => {
    const token = await superAdminToken(t);
    const send = (q: string) =>
      t
        .http()
        .post(`/api/v1/admin/benefits${q}`)
        .set(bearer(token))
        .send({ lookupKey: 'x1', name: 'X' });
    for (const q of [
      '',
      `?applicationId=${a.id}`,
      `?mode=TEST`,
      `?applicationId=${a.id}&mode=test`,
      `?applicationId=abc&mode=TEST`,
    ]) {
      const res = await send(q);
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    }
    const unknownApp = await send('?applicationId=999999&mode=TEST');
    expect(unknownApp.status).toBe(404);
    expect(unknownApp.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    const unknownBenefit = await t
      .http()
      .post('/api/v1/admin/benefits/999999/activate')
      .set(bearer(token));
    expect(unknownBenefit.status).toBe(404);
  });

  it('a duplicate lookupKey in the same app and mode is 409 DUPLICATE_RESOURCE', async () => {
    const res = await t
      .http()
      .post('/api/v1/benefits')
      .set(asApp(a.TEST))
      .send({ lookupKey: 'gold', name: 'Again' });
    expect(res.status).toBe(409);
    expect(res.body.meta.errorCode).toBe('DUPLICATE_RESOURCE');
  });
});
