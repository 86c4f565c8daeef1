import { appFixture } from '../support/app-fixture';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { TestApp } from '../support/test-app';

/**
 * What a developer meets with their first hand-written requests: bodies
 * that are not JSON, JavaScript-special member names, one message per field
 * problem, and a wrong method on a real path.
 */
describe('request hygiene: errors that say what to do', () => {
  let t: TestApp;
  let app: CreatedApp;

  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  const invoice = {
    customerReference: 'cust_1',
    lineItems: [{ description: 'Book', qty: 1, unitAmountMinor: 1000 }],
  };

  it('API answers carry no ETag, so a conditional GET is answered in full (200 with its body, never 304)', async () => {
    const own = await createApp(t);
    const created = await t
      .http()
      .post('/api/v1/invoices')
      .set(asApp(own.TEST))
      .send(invoice)
      .expect(201);
    expect(created.headers.etag).toBeUndefined();
    const path = `/api/v1/invoices/${created.body.data.id}`;
    const first = await t.http().get(path).set(asApp(own.TEST)).expect(200);
    expect(first.headers.etag).toBeUndefined();
    // What a client or proxy would send had an ETag ever been given (express's weak tag of the body).
    const again = await t.http().get(path).set(asApp(own.TEST)).set('If-None-Match', 'W/"0-0", *');
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(created.body.data.id);
  });

  describe('415 UNSUPPORTED_MEDIA_TYPE for API bodies that are not JSON', () => {
    it("a form body (curl -d's default) is 415 telling to send application/json; nothing is created", async () => {
      const res = await t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(app.TEST))
        .type('form')
        .send('customerReference=cust_1');
      expect(res.status).toBe(415);
      expect(res.body.meta).toMatchObject({ success: false, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
      expect(res.body.meta.message).toContain('send Content-Type: application/json');
      expect(res.body.meta.message).toContain('application/x-www-form-urlencoded');
      const list = await t.http().get('/api/v1/invoices').set(asApp(app.TEST));
      expect(list.body.data).toEqual([]);
    });

    it('a body with no Content-Type, or text/plain, is 415 as well', async () => {
      const res = await t
        .http()
        .post('/api/v1/auth/login')
        .set('Content-Type', 'text/plain')
        .send('{"email":"a@b.c","password":"x"}');
      expect(res.status).toBe(415);
      expect(res.body.meta.errorCode).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    it('application/json; charset=utf-8 and requests without a body are accepted', async () => {
      const res = await t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(app.TEST))
        .set('Content-Type', 'application/json; charset=utf-8')
        .send(JSON.stringify(invoice));
      expect(res.status).toBe(201);
      const get = await t.http().get('/api/v1/invoices').set(asApp(app.TEST));
      expect(get.status).toBe(200);
    });

    it('the hosted pay page still takes its form post (not 415)', async () => {
      const res = await t.http().post('/pay/not-a-real-token').type('form').send('x=1');
      expect(res.status).not.toBe(415);
    });
  });

  describe('__proto__ / constructor / prototype members', () => {
    it.each([
      ['{"__proto__":{"polluted":true},"customerReference":"c","lineItems":[]}', '__proto__'],
      [
        '{"customerReference":"c","lineItems":[{"description":"x","qty":1,"unitAmountMinor":5,"constructor":{"prototype":{}}}]}',
        'lineItems.0.constructor',
      ],
      ['{"customerReference":"c","metadata":{"prototype":1},"lineItems":[]}', 'metadata.prototype'],
    ])('%s is 400 VALIDATION_FAILED naming %s; nothing is created', async (raw, field) => {
      const res = await t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(app.TEST))
        .set('Content-Type', 'application/json')
        .send(raw);
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details).toEqual([{ field, message: `${field} is not allowed` }]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('validation messages', () => {
    it('a string amount gets one message: an integer number of minor units', async () => {
      const res = await t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(app.TEST))
        .send({
          ...invoice,
          lineItems: [{ description: 'Book', qty: 1, unitAmountMinor: '1000' }],
        });
      expect(res.status).toBe(400);
      expect(res.body.meta.details).toEqual([
        {
          field: 'lineItems.0.unitAmountMinor',
          message: 'unitAmountMinor must be an integer number of minor units',
        },
      ]);
    });

    it('an empty list says "at least 1 element"', async () => {
      const res = await t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(app.TEST))
        .send({ ...invoice, lineItems: [] });
      expect(res.status).toBe(400);
      expect(res.body.meta.details).toEqual([
        { field: 'lineItems', message: 'lineItems must contain at least 1 element' },
      ]);
    });

    it.each(['null', '[]', '"text"', '42'])(
      'a JSON body %s is "body must be a JSON object"',
      async (raw) => {
        const res = await t
          .http()
          .post('/api/v1/auth/login')
          .set('Content-Type', 'application/json')
          .send(raw);
        expect(res.status).toBe(400);
        expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
        expect(res.body.meta.details).toEqual([
          { field: 'body', message: 'body must be a JSON object' },
        ]);
      },
    );
  });

  describe('405 METHOD_NOT_ALLOWED on an existing path', () => {
    it('PUT /api/v1/invoices is 405 with an Allow header listing the methods the path takes', async () => {
      const res = await t.http().put('/api/v1/invoices').set(asApp(app.TEST)).send({});
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, POST');
      expect(res.body.meta).toMatchObject({ success: false, errorCode: 'METHOD_NOT_ALLOWED' });
      expect(res.body.meta.message).toBe(
        'PUT is not allowed on /api/v1/invoices; use GET, HEAD, POST',
      );
    });

    it('a path with a parameter too (DELETE /api/v1/payments/1)', async () => {
      const res = await t.http().delete('/api/v1/payments/1').set(asApp(app.TEST));
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
    });

    it('a path that does not exist stays 404 ROUTE_NOT_FOUND', async () => {
      const res = await t.http().put('/api/v1/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body.meta.errorCode).toBe('ROUTE_NOT_FOUND');
      expect(res.headers.allow).toBeUndefined();
    });
  });
});
