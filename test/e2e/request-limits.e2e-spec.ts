import { bearer, superAdminToken } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * What one hostile request may cost: a body with very many JSON members is
 * refused right after parsing (before any validation library walks it), the
 * public login takes 4 KiB at most, an error lists at most 20 details, and
 * ids beyond 2^53-1 in filters are 400, never a 500.
 */
describe('request limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const wideObject = (members: number) =>
    `{${Array.from({ length: members }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`;

  it('a 100,000-member body is 400 naming the limit, before authentication, while a health check is answered', async () => {
    const body = wideObject(100_000);
    expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
    const [big, health] = await Promise.all([
      t.http().post('/api/v1/invoices').set('Content-Type', 'application/json').send(body),
      t.http().get('/healthz'),
    ]);
    expect(health.status).toBe(200);
    expect(big.status).toBe(400);
    expect(big.body.meta.details).toEqual([
      { field: 'body', message: 'JSON must not hold more than 2000 members in all' },
    ]);
  });

  it('members are counted in all: nested objects and arrays add up', async () => {
    const nested = JSON.stringify({
      lineItems: Array.from({ length: 700 }, () => ({ a: 1, b: 2 })),
    });
    const res = await t
      .http()
      .post('/api/v1/invoices')
      .set('Content-Type', 'application/json')
      .send(nested);
    expect(res.status).toBe(400);
    expect(res.body.meta.details[0].message).toContain('2000 members');
    // At the limit the body is read (and then fails authentication, as usual).
    const ok = await t
      .http()
      .post('/api/v1/invoices')
      .set('Content-Type', 'application/json')
      .send(wideObject(2000));
    expect(ok.status).toBe(401);
  });

  it('the login route takes at most 4 KiB (413), checked before the member count', async () => {
    const big = JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(5000) });
    const res = await t
      .http()
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send(big);
    expect(res.status).toBe(413);
    expect(res.body.meta.errorCode).toBe('PAYLOAD_TOO_LARGE');
    expect(res.body.meta.message).toBe('Request body exceeds 4096 bytes');
    const wide = await t
      .http()
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send(wideObject(3000));
    expect(wide.status).toBe(413);
    // The same route spelled another way (case, trailing slash) has the same limit.
    for (const path of ['/API/v1/auth/LOGIN', '/api/v1/auth/login/']) {
      const other = await t.http().post(path).set('Content-Type', 'application/json').send(big);
      expect(other.status).toBe(413);
      expect(other.body.meta.message).toBe('Request body exceeds 4096 bytes');
    }
  });

  it('an error lists at most 20 details', async () => {
    const token = await superAdminToken(t);
    const unknown = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`field${i}`, 1]));
    const res = await t
      .http()
      .post('/api/v1/admin/users')
      .set(bearer(token))
      .send({ email: 'x@joma.test', name: 'X', password: 'a-long-password-123', ...unknown });
    expect(res.status).toBe(400);
    expect(res.body.meta.details).toHaveLength(20);
  });

  it.each(['99999999999999999999', '9007199254740992', '-1', '0'])(
    'applicationId=%s in an admin filter is 400 naming it, never a 500',
    async (id) => {
      const token = await superAdminToken(t);
      const res = await t
        .http()
        .get(`/api/v1/admin/invoices?applicationId=${id}`)
        .set(bearer(token));
      expect(res.status).toBe(400);
      expect(res.body.meta.details[0].field).toBe('applicationId');
    },
  );
});
