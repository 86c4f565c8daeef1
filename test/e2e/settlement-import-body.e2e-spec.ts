import { request as httpRequest } from 'node:http';

import { adminWith, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 43, finding 1: the settlement import takes up to 32 MiB, so its body
 * is read only after the admin session and the permission are verified. The
 * proof needs no clock: the client sends the headers and the first 64 KiB of
 * a large body and then nothing; a server that waited for the body would
 * never answer. A body within the limits but of a hostile shape (a huge
 * array) is refused by its member count, no object built.
 */
describe('settlement import: the large body is read after the guards', () => {
  let t: TestApp;
  let app: CreatedApp;
  let path: string;
  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    path = `/api/v1/admin/settlements/import?applicationId=${app.id}&mode=TEST`;
  });
  afterAll(() => t.close());

  /** Announces `length` bytes, sends only the first 64 KiB, and resolves with the answer. */
  function partialPost(
    authorization: string,
    length: number,
  ): Promise<{ status: number; body: any; bodyComplete: boolean }> {
    const url = new URL(t.baseUrl);
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path,
          headers: {
            authorization,
            'content-type': 'application/json',
            'content-length': String(length),
          },
        },
        (res) => {
          answered = true;
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode!, body: JSON.parse(text), bodyComplete: false });
          });
        },
      );
      req.on('error', (err) => (answered ? undefined : reject(err)));
      // A failure detector, not a speed goal: a server that waits for the body never answers.
      req.setTimeout(15_000, () => {
        req.destroy();
        reject(new Error('no answer while the body was incomplete: the server waited for it'));
      });
      req.write('[' + '1,'.repeat(32 * 1024));
      // ... and nothing more: the body stays incomplete until the answer comes.
    });
  }

  it('a token that is no session: 401 with the body unread (no 31 MiB parse before the guard)', async () => {
    const res = await partialPost('Bearer x', 31 * 1024 * 1024);
    expect(res.status).toBe(401);
    expect(res.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
  });

  it('an admin without reconciliation:run: 403 with the body unread', async () => {
    const reader = await adminWith(t, ['invoices:read']);
    const res = await partialPost(`Bearer ${reader.token}`, 31 * 1024 * 1024);
    expect(res.status).toBe(403);
  });

  it('over 32 MiB: 413 at once, whatever the token', async () => {
    const res = await partialPost(`Bearer ${await superAdminToken(t)}`, 33 * 1024 * 1024);
    expect(res.status).toBe(413);
    expect(res.body.meta.errorCode).toBe('PAYLOAD_TOO_LARGE');
  });

  it('an admin sending a 4 MiB array: 400 by its member count, and the service answers meanwhile', async () => {
    const body = '[' + '1,'.repeat(2 * 1024 * 1024) + '1]';
    const [res, health] = await Promise.all([
      t
        .http()
        .post(path)
        .set('Authorization', `Bearer ${await superAdminToken(t)}`)
        .set('Content-Type', 'application/json')
        .send(body),
      t.http().get('/healthz'),
    ]);
    expect(res.status).toBe(400);
    expect(res.body.meta).toMatchObject({
      errorCode: 'VALIDATION_FAILED',
      details: [{ field: 'body', message: 'JSON must not hold more than 2000 members in all' }],
    });
    expect(health.status).toBe(200);
  });

  it('a small body still gets the usual answers: not JSON (400 MALFORMED_JSON), not an object, a forbidden member', async () => {
    const admin = `Bearer ${await superAdminToken(t)}`;
    const post = (raw: string) =>
      t
        .http()
        .post(path)
        .set('Authorization', admin)
        .set('Content-Type', 'application/json')
        .send(raw);
    expect((await post('{"gateway": ')).body.meta.errorCode).toBe('MALFORMED_JSON');
    expect((await post('"csv"')).body.meta.details).toEqual([
      { field: 'body', message: 'body must be a JSON object' },
    ]);
    expect((await post('{"__proto__": {"x": 1}}')).body.meta.details).toEqual([
      { field: '__proto__', message: '__proto__ is not allowed' },
    ]);
    const ok = await post(
      JSON.stringify({
        gateway: 'sandbox',
        csv: 'gateway_txn_id,amount_minor,currency,transaction_time\nSMALL-1,100,BDT,2027-01-01T00:00:00Z',
      }),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ lines: 1, imported: 1 });
  });
});
