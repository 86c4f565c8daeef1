import { Logger } from '@nestjs/common';

import { asApp, bearer, createApp, superAdminToken } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { TestOnlyModule } from '../support/test-only.module';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EMPTY_PAGINATION = { page: 0, size: 0, totalElements: 0, totalPages: 0 };

/** The full error envelope: data null, meta with success false, message, errorCode, timestamp, details. */
function expectErrorEnvelope(body: unknown, code: string): void {
  expect(body).toEqual({
    data: null,
    meta: {
      success: false,
      message: expect.any(String),
      errorCode: code,
      timestamp: expect.any(String),
    },
    pagination: EMPTY_PAGINATION,
  });
}

describe('errors: every failure is an envelope with the documented code', () => {
  let t: TestApp;
  let token: string;
  let appId: number;
  const settingsPath = () => `/api/v1/admin/apps/${appId}/settings`;

  beforeAll(async () => {
    t = await createTestApp({ imports: [TestOnlyModule] });
    token = await superAdminToken(t);
    appId = (await createApp(t)).id;
  });
  afterAll(() => t.close());

  it('unknown route: 404 ROUTE_NOT_FOUND', async () => {
    for (const res of [
      await t.http().get('/api/v1/no-such-thing'),
      await t.http().get('/no-such-page'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expectErrorEnvelope(res.body, 'ROUTE_NOT_FOUND');
    }
  });

  it('GET / redirects to the dashboard (decisions section 15)', async () => {
    const res = await t.http().get('/');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/dashboard/');
  });

  it('a known path with another method: 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const res = await t.http().delete('/api/v1/benefits');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expectErrorEnvelope(res.body, 'METHOD_NOT_ALLOWED');
  });

  it('a path with broken percent-encoding: 400 VALIDATION_FAILED in the envelope, with a request id', async () => {
    const res = await t.http().get('/api/v1/benefits/%E0%A4%A').set('X-Request-Id', 'bad-url-1');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toBe('bad-url-1');
    expectErrorEnvelope(res.body, 'VALIDATION_FAILED');
  });

  it('malformed JSON: 400 MALFORMED_JSON', async () => {
    // (A well-formed JSON value that is not an object, such as null, is 400
    // VALIDATION_FAILED "body must be a JSON object": request-hygiene.e2e-spec.ts.)
    for (const raw of ['{"email": "a@b.c", ', '{email: 1}', 'nul', '"text']) {
      const res = await t
        .http()
        .post('/api/v1/auth/login')
        .set('Content-Type', 'application/json')
        .send(raw);
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, 'MALFORMED_JSON');
    }
  });

  it('a body over 1 MiB: 413 PAYLOAD_TOO_LARGE; at the limit it is read', async () => {
    // (The public login route has its own 4 KiB limit: request-limits.e2e-spec.ts.)
    const json = (total: number) => {
      const head = '{"colour":"';
      const tail = '"}';
      return head + 'a'.repeat(total - head.length - tail.length) + tail;
    };
    const over = await t
      .http()
      .patch(settingsPath())
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send(json(1024 * 1024 + 1));
    expect(over.status).toBe(413);
    expectErrorEnvelope(over.body, 'PAYLOAD_TOO_LARGE');

    const at = await t
      .http()
      .patch(settingsPath())
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send(json(1024 * 1024));
    expect(at.status).toBe(400);
    expect(at.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(at.body.meta.details).toEqual([
      { field: 'colour', message: 'colour is not a known field' },
    ]);
  });

  it('an unknown body field: 400 VALIDATION_FAILED with details [{field, message}]', async () => {
    const res = await t
      .http()
      .patch(settingsPath())
      .set(bearer(token))
      .send({ paymentExpiryMinutes: 45, colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(res.body.meta.details).toEqual([
      { field: 'colour', message: 'colour is not a known field' },
    ]);
    const row = await t.db.query('SELECT payment_expiry_minutes FROM apps WHERE id = $1', [appId]);
    expect(row.rows[0].payment_expiry_minutes).toBe(30);
  });

  it('an unknown query parameter: 400 VALIDATION_FAILED', async () => {
    const res = await t.http().get('/api/v1/admin/users?colour=red').set(bearer(token));
    expect(res.status).toBe(400);
    expect(res.body.meta.details).toEqual([
      { field: 'colour', message: 'colour is not a known field' },
    ]);
  });

  describe('money values', () => {
    const raw = (json: string) =>
      t
        .http()
        .patch(settingsPath())
        .set(bearer(token))
        .set('Content-Type', 'application/json')
        .send(json);

    it('above 2^53-1, sent as raw JSON text: 400 naming the field', async () => {
      const res = await raw('{"refundApprovalThresholdMinor": 9007199254740993}');
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details).toEqual([
        { field: 'refundApprovalThresholdMinor', message: expect.any(String) },
      ]);
    });

    it.each([
      ['a float', '1000.5'],
      ['a numeric string', '"1000"'],
      ['a negative number', '-1'],
      ['null', 'null'],
      ['2^64', '18446744073709551616'],
    ])('%s: 400 VALIDATION_FAILED', async (_label, value) => {
      const res = await raw(`{"refundApprovalThresholdMinor": ${value}}`);
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details[0].field).toBe('refundApprovalThresholdMinor');
    });

    it('exactly 2^53-1 is accepted and stored exactly', async () => {
      const res = await raw('{"refundApprovalThresholdMinor": 9007199254740991}');
      expect(res.status).toBe(200);
      expect(res.text).toContain('"refundApprovalThresholdMinor":9007199254740991');
      const row = await t.db.query(
        'SELECT refund_approval_threshold_minor::text AS v FROM apps WHERE id = $1',
        [appId],
      );
      expect(row.rows[0].v).toBe('9007199254740991');
    });
  });

  it('a NUL character in any input: 400 VALIDATION_FAILED, not a database 500', async () => {
    const body = await t
      .http()
      .post('/api/v1/admin/apps')
      .set(bearer(token))
      .send({ name: 'a\u0000b' });
    expect(body.status).toBe(400);
    expect(body.body.meta.details).toEqual([
      { field: 'name', message: expect.stringContaining('NUL') },
    ]);
    const query = await t.http().get('/api/v1/admin/users?search=a%00b').set(bearer(token));
    expect(query.status).toBe(400);
    expect(query.body.meta.details[0].field).toBe('search');
    const login = await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: 'x\u0000@joma.test', password: 'p' });
    expect(login.status).toBe(400);
  });

  it('an out-of-range page or application id: 400, not a 500 from the database', async () => {
    const page = await t
      .http()
      .get('/api/v1/admin/users?page=99999999999999999999')
      .set(bearer(token));
    expect(page.status).toBe(400);
    expect(page.body.meta.details[0].field).toBe('page');
    const appIdRes = await t
      .http()
      .post('/api/v1/admin/benefits?applicationId=99999999999999999999&mode=TEST')
      .set(bearer(token))
      .send({ lookupKey: 'k', name: 'n' });
    expect(appIdRes.status).toBe(400);
    expect(appIdRes.body.meta.details[0].field).toBe('applicationId');
  });

  describe('an unexpected error', () => {
    it('is 500 INTERNAL_ERROR whose message carries the correlation id from X-Request-Id, and no internals', async () => {
      const logged = jest.spyOn(Logger.prototype, 'error');
      const res = await t
        .http()
        .get('/api/v1/test-only/db-failure')
        .set('X-Request-Id', 'corr-500-test');
      const lines = logged.mock.calls.map((args) => args.map(String).join(' '));
      logged.mockRestore();
      expect(res.status).toBe(500);
      expectErrorEnvelope(res.body, 'INTERNAL_ERROR');
      expect(res.headers['x-request-id']).toBe('corr-500-test');
      expect(res.body.meta.message).toBe('Internal error. Correlation id: corr-500-test');
      for (const leak of [
        'no_such_table',
        'SELECT',
        'sk_live_must_not_leak',
        'QueryFailed',
        'does not exist',
        '    at ',
        '.ts:',
      ]) {
        expect(res.text).not.toContain(leak);
      }
      // The log line carries the correlation id and the error class, never the SQL or its values.
      expect(lines).toEqual([expect.stringContaining('correlationId=corr-500-test')]);
      for (const leak of ['no_such_table', 'SELECT', 'sk_live_must_not_leak'])
        expect(lines[0]).not.toContain(leak);
    });

    it('without a client request id, the message repeats the generated one', async () => {
      const res = await t.http().get('/api/v1/test-only/db-failure');
      expect(res.status).toBe(500);
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.body.meta.message).toContain(res.headers['x-request-id']);
    });
  });

  describe('X-Request-Id', () => {
    it('is on every response: success, 4xx of each origin, 500', async () => {
      const app = await createApp(t);
      const responses = [
        await t.http().get('/healthz'),
        await t.http().get('/api/v1/nope'),
        await t.http().post('/api/v1/auth/login').set('Content-Type', 'application/json').send('{'),
        await t
          .http()
          .post('/api/v1/auth/login')
          .set('Content-Type', 'application/json')
          .send(`"${'a'.repeat(1024 * 1024 + 10)}"`),
        await t.http().get('/api/v1/auth/me'),
        await t.http().get('/api/v1/benefits').set(asApp(app.TEST)),
        await t
          .http()
          .get('/api/v1/benefits')
          .set({ 'X-Api-Key': app.TEST.apiKey, 'X-Api-Secret': 'wrong' }),
        await t.http().get('/api/v1/test-only/db-failure'),
      ];
      expect(responses.map((r) => r.status)).toEqual([200, 404, 400, 413, 401, 200, 401, 500]);
      for (const r of responses) expect(r.headers['x-request-id']).toMatch(UUID);
      expect(new Set(responses.map((r) => r.headers['x-request-id'])).size).toBe(responses.length);
    });

    it('echoes a sane client id and replaces one that is not', async () => {
      const echoed = await t.http().get('/healthz').set('X-Request-Id', 'client.req-42:a_b');
      expect(echoed.headers['x-request-id']).toBe('client.req-42:a_b');
      const replaced = await t.http().get('/healthz').set('X-Request-Id', 'has spaces and <tags>');
      expect(replaced.headers['x-request-id']).toMatch(UUID);
      const tooLong = await t.http().get('/healthz').set('X-Request-Id', 'a'.repeat(129));
      expect(tooLong.headers['x-request-id']).toMatch(UUID);
    });
  });
});
