import request from 'supertest';

import { IdempotencyRepository } from '../../src/idempotency/idempotency.repository';
import { asApp, createApp, CreatedApp, Credentials } from '../support/factories';
import { until } from '../support/main-process';
import { createTestApp, TestApp } from '../support/test-app';
import { Latch, TestOnlyModule } from '../support/test-only.module';

const HOUR = 60 * 60_000;

describe('idempotency keys', () => {
  let t: TestApp;
  let app: CreatedApp;
  let seq = 0;
  const key = () => `key-${++seq}-${Date.now()}`;
  const createBenefit = (creds: Credentials, idemKey: string, body: object): request.Test =>
    t.http().post('/api/v1/benefits').set(asApp(creds)).set('Idempotency-Key', idemKey).send(body);
  const count = async (sql: string, params: unknown[]) =>
    (await t.db.query(sql, params)).rows[0].n as number;
  const benefits = (lookupKey: string, appId = app.id) =>
    count('SELECT count(*)::int AS n FROM benefits WHERE app_id = $1 AND lookup_key = $2', [
      appId,
      lookupKey,
    ]);
  const storedKeys = (k: string) =>
    count('SELECT count(*)::int AS n FROM idempotency_keys WHERE key = $1', [k]);

  beforeAll(async () => {
    t = await createTestApp({ imports: [TestOnlyModule] });
    app = await createApp(t);
  });
  afterEach(() => {
    t.clock.reset();
    jest.restoreAllMocks();
  });
  afterAll(() => t.close());

  it('a retry replays the first response: same status, same body bytes, Idempotent-Replayed: true, nothing created twice', async () => {
    const k = key();
    const first = await createBenefit(app.TEST, k, { lookupKey: 'replay', name: 'Replay' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    for (let i = 0; i < 2; i++) {
      const again = await createBenefit(app.TEST, k, { lookupKey: 'replay', name: 'Replay' });
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(first.text);
    }
    expect(await benefits('replay')).toBe(1);
    expect(await storedKeys(k)).toBe(1);
  });

  it('the body is compared canonically: the same fields in another order replay', async () => {
    const k = key();
    const first = await createBenefit(app.TEST, k, { lookupKey: 'order', name: 'Order' });
    const again = await createBenefit(app.TEST, k, { name: 'Order', lookupKey: 'order' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('the same key with a different body: 422 IDEMPOTENCY_KEY_REUSED, nothing created', async () => {
    const k = key();
    expect((await createBenefit(app.TEST, k, { lookupKey: 'reuse-a', name: 'A' })).status).toBe(
      201,
    );
    const res = await createBenefit(app.TEST, k, { lookupKey: 'reuse-b', name: 'B' });
    expect(res.status).toBe(422);
    expect(res.body.meta.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await benefits('reuse-b')).toBe(0);
    // The stored outcome is untouched: the original body still replays.
    expect(
      (await createBenefit(app.TEST, k, { lookupKey: 'reuse-a', name: 'A' })).headers[
        'idempotent-replayed'
      ],
    ).toBe('true');
  });

  it('the same key on another path: 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const k = key();
    const body = { lookupKey: 'path', name: 'Path' };
    expect((await createBenefit(app.TEST, k, body)).status).toBe(201);
    const res = await t
      .http()
      .post('/api/v1/test-only/echo')
      .set(asApp(app.TEST))
      .set('Idempotency-Key', k)
      .send(body);
    expect(res.status).toBe(422);
    expect(res.body.meta.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('a 400 validation failure is not stored: the key can be retried with a good body', async () => {
    const k = key();
    const bad = await createBenefit(app.TEST, k, { lookupKey: 'has spaces', name: 'Bad' });
    expect(bad.status).toBe(400);
    expect(await storedKeys(k)).toBe(0);
    const good = await createBenefit(app.TEST, k, { lookupKey: 'fixed', name: 'Fixed' });
    expect(good.status).toBe(201);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
    expect(await benefits('fixed')).toBe(1);
  });

  it('an unexpected 500 is not stored: the same request can be retried', async () => {
    const k = key();
    const send = () =>
      t
        .http()
        .post('/api/v1/test-only/fail-once')
        .set(asApp(app.TEST))
        .set('Idempotency-Key', k)
        .send({ name: k });
    const failed = await send();
    expect(failed.status).toBe(500);
    expect(await storedKeys(k)).toBe(0);
    const retried = await send();
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect((await send()).text).toBe(retried.text);
  });

  it('a 409 DUPLICATE_RESOURCE outcome is stored and replayed byte for byte, without running again', async () => {
    expect((await createBenefit(app.TEST, key(), { lookupKey: 'dup', name: 'Dup' })).status).toBe(
      201,
    );
    const k = key();
    const first = await createBenefit(app.TEST, k, { lookupKey: 'dup', name: 'Dup' });
    expect(first.status).toBe(409);
    expect(first.body.meta.errorCode).toBe('DUPLICATE_RESOURCE');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await storedKeys(k)).toBe(1);

    // Were the request executed again, it would now succeed.
    await t.db.query(`DELETE FROM benefits WHERE app_id = $1 AND lookup_key = 'dup'`, [app.id]);
    const replay = await createBenefit(app.TEST, k, { lookupKey: 'dup', name: 'Dup' });
    expect(replay.status).toBe(409);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await benefits('dup')).toBe(0);
  });

  it('keys are scoped per app and mode', async () => {
    const other = await createApp(t);
    const k = key();
    const body = { lookupKey: 'scoped', name: 'Scoped' };
    const test = await createBenefit(app.TEST, k, body);
    const live = await createBenefit(app.LIVE, k, body);
    const otherApp = await createBenefit(other.TEST, k, body);
    for (const res of [test, live, otherApp]) {
      expect(res.status).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(live.body.data.mode).toBe('LIVE');
    expect(new Set([test.body.data.id, live.body.data.id, otherApp.body.data.id]).size).toBe(3);
    expect(await storedKeys(k)).toBe(3);
  });

  it('key length: 1..255 characters', async () => {
    const tooLong = await createBenefit(app.TEST, 'k'.repeat(256), {
      lookupKey: 'long',
      name: 'Long',
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(tooLong.body.meta.details).toEqual([
      { field: 'Idempotency-Key', message: expect.any(String) },
    ]);
    expect((await createBenefit(app.TEST, '', { lookupKey: 'empty', name: 'Empty' })).status).toBe(
      400,
    );
    expect(await benefits('long')).toBe(0);
    const max = await createBenefit(
      app.TEST,
      `${'k'.repeat(250)}${String(++seq).padStart(5, '0')}`,
      { lookupKey: 'max', name: 'Max' },
    );
    expect(max.status).toBe(201);
  });

  it('without a key nothing is stored and each request runs', async () => {
    const before = await count('SELECT count(*)::int AS n FROM idempotency_keys', []);
    for (const lookupKey of ['nokey-1', 'nokey-2']) {
      const res = await t
        .http()
        .post('/api/v1/benefits')
        .set(asApp(app.TEST))
        .send({ lookupKey, name: 'No key' });
      expect(res.status).toBe(201);
    }
    expect(await count('SELECT count(*)::int AS n FROM idempotency_keys', [])).toBe(before);
  });

  it('a request with the same key while the first is running: 409 IDEMPOTENCY_KEY_IN_USE; other keys are not blocked', async () => {
    const latch = t.app.get(Latch);
    const k = key();
    const held = t
      .http()
      .post('/api/v1/test-only/held')
      .set(asApp(app.TEST))
      .set('Idempotency-Key', k)
      .send({ gate: k });
    const first = held.then((r) => r); // start it
    await latch.entered(k);

    const second = await t
      .http()
      .post('/api/v1/test-only/held')
      .set(asApp(app.TEST))
      .set('Idempotency-Key', k)
      .send({ gate: k });
    expect(second.status).toBe(409);
    expect(second.body.meta.errorCode).toBe('IDEMPOTENCY_KEY_IN_USE');
    const unrelated = await t
      .http()
      .post('/api/v1/test-only/held')
      .set(asApp(app.TEST))
      .set('Idempotency-Key', key())
      .send({});
    expect(unrelated.status).toBe(201);

    latch.release(k);
    const done = await first;
    expect(done.status).toBe(201);
    const replay = await t
      .http()
      .post('/api/v1/test-only/held')
      .set(asApp(app.TEST))
      .set('Idempotency-Key', k)
      .send({ gate: k });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(done.text);
  });

  it('a request that outlives its lease and was taken over by a retry: its work is undone and it gets 409; the retry commits once', async () => {
    const latch = t.app.get(Latch);
    const k = key();
    const reference = `takeover-${k}`;
    const send = () =>
      request(t.baseUrl)
        .post('/api/v1/test-only/held-write')
        .set(asApp(app.TEST))
        .set('Idempotency-Key', k)
        .send({ gate: k, reference });
    const ownerOf = async () =>
      (await t.db.query(`SELECT owner FROM idempotency_keys WHERE key = $1`, [k])).rows[0]
        ?.owner as string | undefined;
    const first = send().then((r) => r);
    await latch.entered(k); // its customer is written, not committed
    const firstOwner = await ownerOf();
    expect(firstOwner).toBeDefined();

    t.clock.advance(61_000); // past the first's lease
    const retry = send().then((r) => r);
    // The retry takes the key over (committed), then waits on the first's customer row.
    for (let i = 0; i < 200 && (await ownerOf()) === firstOwner; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await ownerOf()).not.toBe(firstOwner);

    latch.release(k);
    const [late, won] = await Promise.all([first, retry]);
    expect(late.status).toBe(409);
    expect(late.body.meta.errorCode).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(won.status).toBe(201);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM customers WHERE app_id = $1 AND external_id = $2`,
        [app.id, reference],
      ),
    ).toBe(1);
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(won.text);
  });

  it('a real concurrent double-submit creates exactly one record', async () => {
    for (let round = 0; round < 3; round++) {
      const k = key();
      const lookupKey = `race-${round}`;
      // Separate agents: each request is its own connection.
      const responses = await Promise.all(
        Array.from({ length: 5 }, () =>
          request(t.baseUrl)
            .post('/api/v1/benefits')
            .set(asApp(app.TEST))
            .set('Idempotency-Key', k)
            .send({ lookupKey, name: 'Race' }),
        ),
      );
      const created = responses.filter((r) => r.status === 201);
      const inUse = responses.filter((r) => r.status === 409);
      expect(created.length + inUse.length).toBe(5);
      for (const r of inUse) expect(r.body.meta.errorCode).toBe('IDEMPOTENCY_KEY_IN_USE');
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(created.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
      expect(new Set(created.map((r) => r.text)).size).toBe(1);
      expect(await benefits(lookupKey)).toBe(1);
      expect(await storedKeys(k)).toBe(1);
    }
  });

  it('keys are kept 24 hours: then the same key starts afresh', async () => {
    const k = key();
    expect((await createBenefit(app.TEST, k, { lookupKey: 'day-1', name: 'Day 1' })).status).toBe(
      201,
    );
    t.clock.advance(24 * HOUR - 60_000);
    expect((await createBenefit(app.TEST, k, { lookupKey: 'day-2', name: 'Day 2' })).status).toBe(
      422,
    );
    expect(
      (await createBenefit(app.TEST, k, { lookupKey: 'day-1', name: 'Day 1' })).headers[
        'idempotent-replayed'
      ],
    ).toBe('true');
    t.clock.advance(60_000 + 1000);
    const fresh = await createBenefit(app.TEST, k, { lookupKey: 'day-2', name: 'Day 2' });
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(await benefits('day-2')).toBe(1);
    expect(await storedKeys(k)).toBe(1);
  });

  /** pg-pool's error when no connection frees up within the acquire timeout. */
  const poolTimeout = () => new Error('timeout exceeded when trying to connect');

  describe('a 5xx that committed nothing frees its key at once (decisions 3, amended)', () => {
    const unavailable = (key: string) =>
      t
        .http()
        .post('/api/v1/test-only/unavailable-once')
        .set(asApp(app.TEST))
        .set('Idempotency-Key', key)
        .send({ name: key });

    it('a 503 from the handler: the retry at once runs', async () => {
      t.clock.freeze();
      expect((await unavailable('u503-a')).status).toBe(503);
      expect(await storedKeys('u503-a')).toBe(0);
      const retry = await unavailable('u503-a');
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
    });

    it('a claim whose answer was lost after its COMMIT (a dropped connection): 503, and the retry at once runs, not 409', async () => {
      t.clock.freeze();
      const repo = t.app.get(IdempotencyRepository);
      const real = repo.insertStarted.bind(repo);
      jest.spyOn(repo, 'insertStarted').mockImplementationOnce(async (...args) => {
        await real(...args);
        throw new Error('Connection terminated unexpectedly');
      });
      const lost = await unavailable('u503-b');
      expect(lost.status).toBe(503);
      expect(lost.body.meta.errorCode).toBe('SERVICE_UNAVAILABLE');
      expect(await storedKeys('u503-b')).toBe(0);
      // The handler never ran: its first run (503) and then the retry's.
      expect((await unavailable('u503-b')).status).toBe(503);
      expect((await unavailable('u503-b')).status).toBe(201);
    });

    it('a release the database cannot take at first (its pool is exhausted) is retried until it lands, well before the lease', async () => {
      t.clock.freeze();
      const repo = t.app.get(IdempotencyRepository);
      jest.spyOn(repo, 'release').mockRejectedValueOnce(poolTimeout());
      expect((await unavailable('u503-c')).status).toBe(503);
      // The lease would free it only after 60 s of the (frozen) clock: the background retry frees it.
      await until(async () => (await storedKeys('u503-c')) === 0, 20_000);
      expect((await unavailable('u503-c')).status).toBe(201);
    });
  });
});
