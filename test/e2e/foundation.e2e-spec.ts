import { IdempotencyCleanupJob } from '../../src/idempotency/idempotency-cleanup.job';
import { asApp, createApp } from '../support/factories';
import { createTestApp, TestApp, testHttpAdapter } from '../support/test-app';

describe('foundation: envelope and errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('runs on the HTTP adapter its Jest project names (e2e: Express, e2e-fastify: Fastify)', async () => {
    expect(t.app.getHttpAdapter().getType()).toBe(testHttpAdapter());
    const res = await t.http().get('/healthz');
    // Express names itself unless told not to; Joma tells it not to, and Fastify never does.
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('serves /healthz in the envelope with a request id', async () => {
    const res = await t.http().get('/healthz').set('X-Request-Id', 'abc-123');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('abc-123');
    expect(res.body).toEqual({
      data: { status: 'ok' },
      meta: { success: true, message: 'OK', timestamp: expect.any(String) },
      pagination: { page: 0, size: 0, totalElements: 0, totalPages: 0 },
    });
  });

  it('serves /readyz: ready while the database answers', async () => {
    const res = await t.http().get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ status: 'ready', database: 'up' });
  });
});

describe('foundation: smoke of app keys, partition and idempotency', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('creates a benefit once per Idempotency-Key and hides it from the other mode', async () => {
    const app = await createApp(t);
    const send = () =>
      t
        .http()
        .post('/api/v1/benefits')
        .set(asApp(app.TEST))
        .set('Idempotency-Key', 'k1')
        .send({ lookupKey: 'gold', name: 'Gold' });
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ lookupKey: 'gold', active: false, mode: 'TEST' });
    const second = await send();
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.text).toBe(first.text);
    const live = await t.http().get(`/api/v1/benefits/${first.body.data.id}`).set(asApp(app.LIVE));
    expect(live.status).toBe(404);
    expect(live.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
    const rows = await t.db.query('SELECT count(*)::int AS n FROM benefits WHERE app_id = $1', [
      app.id,
    ]);
    expect(rows.rows[0].n).toBe(1);
  });
});

describe('foundation: idempotency housekeeping', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('deletes only keys older than 24 h and stores response bodies encrypted', async () => {
    const app = await createApp(t);
    const res = await t
      .http()
      .post('/api/v1/benefits')
      .set(asApp(app.TEST))
      .set('Idempotency-Key', 'old')
      .send({ lookupKey: 'k-old', name: 'Old' });
    expect(res.status).toBe(201);
    const stored = await t.db.query(
      `SELECT response_body FROM idempotency_keys WHERE app_id = $1`,
      [app.id],
    );
    expect(stored.rows[0].response_body).not.toContain('k-old');
    const job = t.app.get(IdempotencyCleanupJob);
    expect(await job.run()).toBe(0);
    t.clock.advance(24 * 60 * 60_000 + 1000);
    try {
      expect(await job.run()).toBeGreaterThanOrEqual(1);
    } finally {
      t.clock.reset();
    }
    expect(
      (
        await t.db.query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE app_id = $1`, [
          app.id,
        ])
      ).rows[0].n,
    ).toBe(0);
  });
});
