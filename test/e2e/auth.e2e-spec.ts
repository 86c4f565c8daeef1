import { JwtService } from '@nestjs/jwt';

import { adminWith, bearer, login, superAdminToken } from '../support/factories';
import { createTestApp, SUPER_ADMIN, TestApp } from '../support/test-app';

const MINUTE = 60_000;
const PASSWORD = 'admin-password-123';

describe('admin auth', () => {
  let t: TestApp;
  let seq = 0;
  const freshEmail = (label: string) => `${label}-${++seq}@auth.joma.test`;
  const me = (token: string) => t.http().get('/api/v1/auth/me').set(bearer(token));
  const attempt = (email: string, password: string) =>
    t.http().post('/api/v1/auth/login').send({ email, password });
  const claimsOf = (token: string) =>
    JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as {
      sub: string;
      sid: string;
      exp: number;
    };

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.clock.reset());
  afterAll(() => t.close());

  describe('login', () => {
    it('returns exactly the documented Session fields', async () => {
      const before = t.clock.nowMs();
      const res = await attempt(SUPER_ADMIN.email, SUPER_ADMIN.password);
      expect(res.status).toBe(200);
      expect(res.body.meta).toMatchObject({ success: true });
      const s = res.body.data;
      expect(Object.keys(s).sort()).toEqual(
        [
          'appIds',
          'email',
          'expiresAt',
          'name',
          'permissions',
          'superAdmin',
          'token',
          'tokenType',
          'userId',
        ].sort(),
      );
      expect(s).toMatchObject({
        tokenType: 'Bearer',
        email: SUPER_ADMIN.email,
        superAdmin: true,
        permissions: [],
        appIds: null,
      });
      expect(Number.isInteger(s.userId)).toBe(true);
      expect(typeof s.name).toBe('string');
      // 60 minutes by default, from the service clock.
      const lifetime = Date.parse(s.expiresAt) - before;
      expect(lifetime).toBeGreaterThanOrEqual(60 * MINUTE - 1000);
      expect(lifetime).toBeLessThanOrEqual(60 * MINUTE + 5000);
      expect(s.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(res.text).not.toContain(SUPER_ADMIN.password);
      const session = await t.db.query(
        'SELECT user_id, expires_at, revoked_at FROM admin_sessions WHERE token_id = $1',
        [claimsOf(s.token).sid],
      );
      expect(session.rows).toEqual([
        { user_id: s.userId, expires_at: new Date(s.expiresAt), revoked_at: null },
      ]);
    });

    it('is case-insensitive on the email and records lastLoginAt', async () => {
      const admin = await adminWith(t, []);
      const res = await attempt(admin.email.toUpperCase(), PASSWORD);
      expect(res.status).toBe(200);
      expect(res.body.data.userId).toBe(admin.id);
      const row = await t.db.query('SELECT last_login_at FROM admin_users WHERE id = $1', [
        admin.id,
      ]);
      expect(row.rows[0].last_login_at).toBeInstanceOf(Date);
    });

    it('a wrong password and an unknown email get the same 401 INVALID_CREDENTIALS', async () => {
      const admin = await adminWith(t, []);
      const wrong = await attempt(admin.email, 'not-the-password');
      const unknown = await attempt(freshEmail('nobody'), 'not-the-password');
      for (const res of [wrong, unknown]) {
        expect(res.status).toBe(401);
        expect(res.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
      }
      expect(unknown.body.meta.message).toBe(wrong.body.meta.message);
    });

    it('a missing field is 400 VALIDATION_FAILED', async () => {
      const res = await t.http().post('/api/v1/auth/login').send({ email: SUPER_ADMIN.email });
      expect(res.status).toBe(400);
      expect(res.body.meta.details.map((d: { field: string }) => d.field)).toContain('password');
    });
  });

  describe('current user', () => {
    it('me returns only userId, email, name, superAdmin, permissions and appIds', async () => {
      const admin = await adminWith(t, ['apps:read', 'users:read']);
      const res = await me(admin.token);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        userId: admin.id,
        email: admin.email,
        name: expect.any(String),
        superAdmin: false,
        permissions: ['apps:read', 'users:read'],
        appIds: null,
      });
    });

    it('reflects permission changes at once (read from the user, not the token)', async () => {
      const admin = await adminWith(t, ['apps:read']);
      const patch = await t
        .http()
        .patch(`/api/v1/admin/users/${admin.id}`)
        .set(bearer(await superAdminToken(t)))
        .send({ permissions: ['users:read'] });
      expect(patch.status).toBe(200);
      expect((await me(admin.token)).body.data.permissions).toEqual(['users:read']);
    });
  });

  describe('tokens', () => {
    it('missing Authorization header: 401 AUTHENTICATION_REQUIRED', async () => {
      const res = await t.http().get('/api/v1/auth/me');
      expect(res.status).toBe(401);
      expect(res.body.meta.errorCode).toBe('AUTHENTICATION_REQUIRED');
    });

    it.each([
      ['a garbage token', 'Bearer garbage'],
      ['a three-part garbage token', 'Bearer abc.def.ghi'],
      ['another scheme', 'Basic dXNlcjpwYXNz'],
      ['an empty bearer', 'Bearer '],
    ])('%s: 401 INVALID_CREDENTIALS', async (_label, header) => {
      const res = await t.http().get('/api/v1/auth/me').set('Authorization', header);
      expect(res.status).toBe(401);
      expect(res.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
    });

    it('a token signed with another secret: 401 INVALID_CREDENTIALS', async () => {
      const { sub, sid } = claimsOf(await login(t, SUPER_ADMIN.email, SUPER_ADMIN.password));
      const forged = new JwtService().sign(
        { sub, sid },
        { secret: 'x'.repeat(64), expiresIn: 600, algorithm: 'HS256' },
      );
      const res = await me(forged);
      expect(res.status).toBe(401);
      expect(res.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
    });

    it('a token whose JWT exp has passed (real time): 401 INVALID_CREDENTIALS', async () => {
      const { sub, sid } = claimsOf(await login(t, SUPER_ADMIN.email, SUPER_ADMIN.password));
      const sign = (exp: number) =>
        new JwtService().sign(
          { sub, sid, exp },
          { secret: t.config.jwtSecret, algorithm: 'HS256' },
        );
      expect((await me(sign(Math.floor(Date.now() / 1000) + 600))).status).toBe(200);
      const res = await me(sign(Math.floor(Date.now() / 1000) - 5));
      expect(res.status).toBe(401);
      expect(res.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
    });

    it('the server-side session expires after 60 minutes on the service clock: 401 INVALID_CREDENTIALS', async () => {
      // passport-jwt checks the JWT exp against the real clock; the session row is checked against the service clock.
      const token = await login(t, SUPER_ADMIN.email, SUPER_ADMIN.password);
      t.clock.advance(59 * MINUTE);
      expect((await me(token)).status).toBe(200);
      t.clock.advance(1 * MINUTE + 1000);
      const res = await me(token);
      expect(res.status).toBe(401);
      expect(res.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
    });

    it('a token whose user id does not match its session: 401', async () => {
      const admin = await adminWith(t, []);
      const { sid } = claimsOf(admin.token);
      const other = new JwtService().sign(
        { sub: String(admin.id + 1000), sid },
        { secret: t.config.jwtSecret, expiresIn: 600, algorithm: 'HS256' },
      );
      expect((await me(other)).status).toBe(401);
    });
  });

  describe('logout', () => {
    it('revokes the presented token only: the same token is then 401 INVALID_CREDENTIALS', async () => {
      const admin = await adminWith(t, []);
      const second = await login(t, admin.email, PASSWORD);
      expect((await me(admin.token)).status).toBe(200);
      const out = await t.http().post('/api/v1/auth/logout').set(bearer(admin.token));
      expect(out.status).toBe(200);
      const after = await me(admin.token);
      expect(after.status).toBe(401);
      expect(after.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
      expect((await t.http().post('/api/v1/auth/logout').set(bearer(admin.token))).status).toBe(
        401,
      );
      expect((await me(second)).status).toBe(200);
      const rows = await t.db.query(
        'SELECT token_id, revoked_at FROM admin_sessions WHERE user_id = $1',
        [admin.id],
      );
      const revoked = rows.rows.filter((r) => r.revoked_at !== null).map((r) => r.token_id);
      expect(revoked).toEqual([claimsOf(admin.token).sid]);
    });
  });

  describe('lock-out', () => {
    const failTimes = async (email: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await attempt(email, `wrong-password-${i}`);
        expect(res.status).toBe(401);
      }
    };

    it('5 failures within 15 minutes: the 6th attempt is 429 RATE_LIMITED with Retry-After, even with the right password', async () => {
      const admin = await adminWith(t, []);
      await failTimes(admin.email, 5);
      const locked = await attempt(admin.email, PASSWORD);
      expect(locked.status).toBe(429);
      expect(locked.body.meta.errorCode).toBe('RATE_LIMITED');
      const retryAfter = Number(locked.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(locked.body.data).toBeNull();

      // Any case of the email is the same lock.
      expect((await attempt(admin.email.toUpperCase(), PASSWORD)).status).toBe(429);

      t.clock.advance(14 * MINUTE);
      const still = await attempt(admin.email, PASSWORD);
      expect(still.status).toBe(429);
      expect(Number(still.headers['retry-after'])).toBeLessThanOrEqual(60);

      t.clock.advance(1 * MINUTE + 1000);
      const ok = await attempt(admin.email, PASSWORD);
      expect(ok.status).toBe(200);

      // A success clears the count: one more failure is a plain 401 again.
      expect((await attempt(admin.email, 'wrong-again')).status).toBe(401);
      expect((await attempt(admin.email, PASSWORD)).status).toBe(200);
    });

    it('locks an email no user has in the same way, and leaves other emails alone', async () => {
      const ghost = freshEmail('ghost');
      const admin = await adminWith(t, []);
      await failTimes(ghost, 5);
      await failTimes(admin.email, 5);
      const ghostLocked = await attempt(ghost, 'anything-at-all');
      const userLocked = await attempt(admin.email, PASSWORD);
      expect(ghostLocked.status).toBe(429);
      expect(ghostLocked.body.meta.errorCode).toBe('RATE_LIMITED');
      // Nothing tells the two apart.
      expect(ghostLocked.body.meta.message).toBe(userLocked.body.meta.message);
      for (const res of [ghostLocked, userLocked])
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(14 * 60);
      expect((await attempt(SUPER_ADMIN.email, SUPER_ADMIN.password)).status).toBe(200);
      // Failures stored only as hashes: the email is nowhere in the table.
      const rows = await t.db.query('SELECT key FROM login_throttles');
      expect(rows.rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows.rows)).not.toContain('ghost');
    });

    it('failures spread over more than 15 minutes do not lock', async () => {
      const admin = await adminWith(t, []);
      await failTimes(admin.email, 4);
      t.clock.advance(16 * MINUTE);
      await failTimes(admin.email, 1);
      expect((await attempt(admin.email, PASSWORD)).status).toBe(200);
    });

    it('4 failures do not lock', async () => {
      const admin = await adminWith(t, []);
      await failTimes(admin.email, 4);
      expect((await attempt(admin.email, PASSWORD)).status).toBe(200);
    });
  });

  describe('disabling a user', () => {
    it('revokes all their sessions; re-enabling does not bring the old tokens back', async () => {
      const root = await superAdminToken(t);
      const admin = await adminWith(t, ['apps:read']);
      const second = await login(t, admin.email, PASSWORD);
      expect((await me(admin.token)).status).toBe(200);
      expect((await me(second)).status).toBe(200);

      const disable = await t
        .http()
        .patch(`/api/v1/admin/users/${admin.id}`)
        .set(bearer(root))
        .send({ status: 'DISABLED' });
      expect(disable.status).toBe(200);
      expect(disable.body.data.status).toBe('DISABLED');
      for (const token of [admin.token, second]) {
        const res = await me(token);
        expect(res.status).toBe(401);
        expect(res.body.meta.errorCode).toBe('INVALID_CREDENTIALS');
      }
      const open = await t.db.query(
        'SELECT count(*)::int AS n FROM admin_sessions WHERE user_id = $1 AND revoked_at IS NULL',
        [admin.id],
      );
      expect(open.rows[0].n).toBe(0);
      // A disabled user cannot log in.
      expect((await attempt(admin.email, PASSWORD)).status).toBe(401);

      const enable = await t
        .http()
        .patch(`/api/v1/admin/users/${admin.id}`)
        .set(bearer(root))
        .send({ status: 'ACTIVE' });
      expect(enable.status).toBe(200);
      expect((await me(admin.token)).status).toBe(401);
      expect((await me(second)).status).toBe(401);
      const fresh = await login(t, admin.email, PASSWORD);
      expect((await me(fresh)).status).toBe(200);
    });
  });
});
