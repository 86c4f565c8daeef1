import { bearer, superAdminToken } from '../support/factories';
import { createTestApp, SUPER_ADMIN, TestApp } from '../support/test-app';

interface Item {
  id: number;
  email: string;
  name: string;
  status: string;
  lastLoginAt: string | null;
}

const PEOPLE = [
  { email: 'alice@users.joma.test', name: 'Alice Able' },
  { email: 'bob@users.joma.test', name: 'Bob Baker' },
  { email: 'carol@users.joma.test', name: 'Carol Cox' },
  { email: 'dave_x@users.joma.test', name: 'Dave 100% Dunn' },
  { email: 'erin@users.joma.test', name: 'Erin Alice-Fan' },
];

describe('admin users', () => {
  let t: TestApp;
  let token: string;
  const ids: Record<string, number> = {};
  const list = (query = '') => t.http().get(`/api/v1/admin/users${query}`).set(bearer(token));
  const emails = (items: Item[]) => items.map((i) => i.email);

  beforeAll(async () => {
    t = await createTestApp();
    token = await superAdminToken(t);
    for (const p of PEOPLE) {
      const res = await t
        .http()
        .post('/api/v1/admin/users')
        .set(bearer(token))
        .send({ ...p, password: 'a-long-password-1' });
      expect(res.status).toBe(201);
      ids[p.email] = res.body.data.id;
    }
    const carol = await t
      .http()
      .patch(`/api/v1/admin/users/${ids['carol@users.joma.test']}`)
      .set(bearer(token))
      .send({ status: 'DISABLED' });
    expect(carol.status).toBe(200);
  });
  afterAll(() => t.close());

  describe('GET /admin/users', () => {
    it('defaults: page 0, size 20, newest first, list items without any password material', async () => {
      const res = await list();
      expect(res.status).toBe(200);
      expect(res.body.pagination).toEqual({ page: 0, size: 20, totalElements: 6, totalPages: 1 });
      const items: Item[] = res.body.data;
      expect(emails(items)).toEqual(
        [...PEOPLE.map((p) => p.email)].reverse().concat(SUPER_ADMIN.email),
      );
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual([
          'appIds',
          'createdAt',
          'email',
          'id',
          'lastLoginAt',
          'name',
          'permissions',
          'status',
          'superAdmin',
        ]);
      }
      expect(res.text).not.toMatch(/password|scrypt/i);
    });

    it('pages with page and size, and the pagination block says so', async () => {
      const p0 = await list('?size=4&page=0');
      const p1 = await list('?size=4&page=1');
      const p2 = await list('?size=4&page=2');
      expect(p0.body.pagination).toEqual({
        page: 0,
        size: 4,
        totalElements: 6,
        totalPages: 2,
        nextCursor: expect.any(String),
      });
      expect(p1.body.pagination).toEqual({ page: 1, size: 4, totalElements: 6, totalPages: 2 });
      expect(p2.body.pagination).toEqual({ page: 2, size: 4, totalElements: 6, totalPages: 2 });
      expect(p0.body.data).toHaveLength(4);
      expect(p1.body.data).toHaveLength(2);
      expect(p2.body.data).toEqual([]);
      const all = [...p0.body.data, ...p1.body.data].map((i: Item) => i.id);
      expect(new Set(all).size).toBe(6);
    });

    it('sorts by a documented field in either order', async () => {
      const byEmail = emails((await list('?sortBy=email&order=asc')).body.data);
      expect(byEmail).toEqual([...byEmail].sort());
      expect(byEmail[0]).toBe('alice@users.joma.test');
      const byNameDesc = (await list('?sortBy=name&order=desc')).body.data.map((i: Item) => i.name);
      expect(byNameDesc).toEqual([
        'Super admin',
        'Erin Alice-Fan',
        'Dave 100% Dunn',
        'Carol Cox',
        'Bob Baker',
        'Alice Able',
      ]);
      const byIdAsc = (await list('?sortBy=id&order=asc')).body.data.map((i: Item) => i.id);
      expect(byIdAsc).toEqual([...byIdAsc].sort((a, b) => a - b));
      const byStatus = (await list('?sortBy=status&order=desc')).body.data.map(
        (i: Item) => i.status,
      );
      expect(byStatus[0]).toBe('DISABLED');
    });

    it('puts users who never logged in last, whichever the order', async () => {
      for (const order of ['asc', 'desc']) {
        const items: Item[] = (await list(`?sortBy=lastLoginAt&order=${order}`)).body.data;
        expect(items[0].email).toBe(SUPER_ADMIN.email);
        expect(items.slice(1).every((i) => i.lastLoginAt === null)).toBe(true);
      }
    });

    it('paginate=false returns every match, ignoring page and size', async () => {
      const res = await list('?paginate=false&size=2&page=3');
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(6);
      expect(res.body.pagination).toEqual({ page: 0, size: 6, totalElements: 6, totalPages: 1 });
      expect((await list('?paginate=true&size=2')).body.data).toHaveLength(2);
    });

    it('search matches email or name, case-insensitively', async () => {
      const res = await list('?search=ALICE');
      expect(emails(res.body.data).sort()).toEqual([
        'alice@users.joma.test',
        'erin@users.joma.test',
      ]);
      expect(res.body.pagination.totalElements).toBe(2);
      expect(emails((await list('?search=%20bak')).body.data)).toEqual(['bob@users.joma.test']);
    });

    it('search treats %, _ and \\ literally', async () => {
      expect(emails((await list('?search=%25')).body.data)).toEqual(['dave_x@users.joma.test']);
      expect(emails((await list('?search=_')).body.data)).toEqual(['dave_x@users.joma.test']);
      expect((await list('?search=%5C')).body.data).toEqual([]);
      const none = await list('?search=nobody-here');
      expect(none.body.data).toEqual([]);
      expect(none.body.pagination).toEqual({ page: 0, size: 20, totalElements: 0, totalPages: 0 });
    });

    it('filters by status', async () => {
      expect(emails((await list('?status=DISABLED')).body.data)).toEqual(['carol@users.joma.test']);
      const active = await list('?status=ACTIVE');
      expect(active.body.pagination.totalElements).toBe(5);
      expect(emails(active.body.data)).not.toContain('carol@users.joma.test');
      expect(emails((await list('?status=DISABLED&search=alice')).body.data)).toEqual([]);
    });

    it.each([
      ['size=101', 'size'],
      ['size=0', 'size'],
      ['size=ten', 'size'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['sortBy=passwordHash', 'sortBy'],
      ['sortBy=nope', 'sortBy'],
      ['order=sideways', 'order'],
      ['paginate=yes', 'paginate'],
      ['status=GONE', 'status'],
    ])('%s: 400 VALIDATION_FAILED naming %s', async (query, field) => {
      const res = await list(`?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('size=100 is the largest page', async () => {
      const res = await list('?size=100');
      expect(res.status).toBe(200);
      expect(res.body.pagination.size).toBe(100);
    });
  });

  describe('POST /admin/users', () => {
    it('creates a user with a scrypt hash and never returns the password', async () => {
      const res = await t
        .http()
        .post('/api/v1/admin/users')
        .set(bearer(token))
        .send({
          email: 'frank@users.joma.test',
          name: 'Frank',
          password: 'frank-secret-pass',
          permissions: ['apps:read'],
        });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        email: 'frank@users.joma.test',
        status: 'ACTIVE',
        superAdmin: false,
        permissions: ['apps:read'],
        lastLoginAt: null,
      });
      expect(res.text).not.toContain('frank-secret-pass');
      const row = await t.db.query('SELECT password_hash FROM admin_users WHERE id = $1', [
        res.body.data.id,
      ]);
      expect(row.rows[0].password_hash).toMatch(/^scrypt\$/);
      expect(row.rows[0].password_hash).not.toContain('frank-secret-pass');
    });

    it('a duplicate email, in any case: 409 DUPLICATE_RESOURCE and no second row', async () => {
      for (const email of ['bob@users.joma.test', 'BOB@Users.Joma.Test']) {
        const res = await t
          .http()
          .post('/api/v1/admin/users')
          .set(bearer(token))
          .send({ email, name: 'Bob again', password: 'a-long-password-2' });
        expect(res.status).toBe(409);
        expect(res.body.meta.errorCode).toBe('DUPLICATE_RESOURCE');
      }
      const rows = await t.db.query(
        `SELECT count(*)::int AS n FROM admin_users WHERE lower(email) = 'bob@users.joma.test'`,
      );
      expect(rows.rows[0].n).toBe(1);
    });

    it.each([
      [{ email: 'not-an-email', name: 'X', password: 'a-long-password-3' }, 'email'],
      [{ email: 'x1@users.joma.test', name: 'X', password: 'short' }, 'password'],
      [{ email: 'x2@users.joma.test', name: '', password: 'a-long-password-3' }, 'name'],
      [
        {
          email: 'x3@users.joma.test',
          name: 'X',
          password: 'a-long-password-3',
          permissions: ['root'],
        },
        'permissions',
      ],
      [
        { email: 'x4@users.joma.test', name: 'X', password: 'a-long-password-3', superAdmin: null },
        'superAdmin',
      ],
    ])('invalid input %j: 400 naming %s', async (body, field) => {
      const res = await t.http().post('/api/v1/admin/users').set(bearer(token)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.meta.details.map((d: { field: string }) => d.field)).toContain(field);
    });
  });

  describe('GET and PATCH /admin/users/{id}', () => {
    it('reads one user; an unknown id is 404, a non-numeric one 400', async () => {
      const id = ids['alice@users.joma.test'];
      const res = await t.http().get(`/api/v1/admin/users/${id}`).set(bearer(token));
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        id,
        email: 'alice@users.joma.test',
        name: 'Alice Able',
      });
      const missing = await t.http().get('/api/v1/admin/users/999999').set(bearer(token));
      expect(missing.status).toBe(404);
      expect(missing.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
      expect((await t.http().get('/api/v1/admin/users/abc').set(bearer(token))).status).toBe(400);
    });

    it('changes name and permissions; null for a required field is 400, not a 500', async () => {
      const id = ids['bob@users.joma.test'];
      const res = await t
        .http()
        .patch(`/api/v1/admin/users/${id}`)
        .set(bearer(token))
        .send({ name: 'Robert Baker', permissions: ['users:read', 'apps:read'] });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        name: 'Robert Baker',
        permissions: ['users:read', 'apps:read'],
      });
      for (const body of [
        { name: null },
        { permissions: null },
        { superAdmin: null },
        { status: null },
      ]) {
        const bad = await t.http().patch(`/api/v1/admin/users/${id}`).set(bearer(token)).send(body);
        expect(bad.status).toBe(400);
        expect(bad.body.meta.details[0].field).toBe(Object.keys(body)[0]);
      }
      const missing = await t
        .http()
        .patch('/api/v1/admin/users/999999')
        .set(bearer(token))
        .send({ name: 'X' });
      expect(missing.status).toBe(404);
    });
  });
});
