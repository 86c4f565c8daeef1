import { hashPassword } from '../../src/common/crypto/crypto';
import { adminWith, bearer, login, superAdminToken } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Login throttling counted atomically before hashing (per email and
 * address, per email, per address), one normal form for emails, and the
 * password routes: changing your own ends your other sessions; only a
 * super admin sets another admin's password.
 */
describe('login security', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      config: {
        loginFailuresPerAddress: 10_000,
        loginFailuresPerEmail: 8,
        loginHashConcurrency: 64,
      },
    });
  });
  afterAll(() => t.close());

  const attempt = (email: string, password: string, from = '203.0.113.7') =>
    t.http().post('/api/v1/auth/login').set('X-Forwarded-For', from).send({ email, password });

  it('30 parallel wrong passwords for one email from one address: exactly 5 are checked, 25 are 429', async () => {
    const admin = await adminWith(t, []);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => attempt(admin.email, `wrong-${i}`, '203.0.113.30')),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    // Locked for that pair even with the right password.
    expect((await attempt(admin.email, 'admin-password-123', '203.0.113.30')).status).toBe(429);
  });

  it('another address is a separate pair, until the email itself reaches its limit (8 here)', async () => {
    const admin = await adminWith(t, []);
    for (let i = 0; i < 4; i++)
      expect((await attempt(admin.email, `w${i}`, '198.51.100.1')).status).toBe(401);
    for (let i = 0; i < 4; i++)
      expect((await attempt(admin.email, `w${i}`, '198.51.100.2')).status).toBe(401);
    const third = await attempt(admin.email, 'admin-password-123', '198.51.100.3');
    expect(third.status).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(14 * 60);
  });

  it('a dotted capital I is not a second spelling of the account (one normal form)', async () => {
    const victim = await adminWith(t, []);
    const [local, domain] = victim.email.split('@');
    // "admin12-…" spelled with U+0130 in place of the "i": JavaScript and PostgreSQL fold it differently.
    const twisted = `${local.replace('i', '\u0130')}@${domain}`;
    expect(twisted).not.toBe(victim.email);
    for (let i = 0; i < 5; i++)
      expect((await attempt(victim.email, `wrong-${i}`, '192.0.2.9')).status).toBe(401);
    expect((await attempt(victim.email, 'admin-password-123', '192.0.2.9')).status).toBe(429);
    // The other spelling never reaches the victim's account, locked or not.
    const res = await attempt(twisted, 'admin-password-123', '192.0.2.9');
    expect(res.status).toBe(401);
  });

  it('changing your own password ends your other sessions, keeps this one, and needs the current password', async () => {
    const admin = await adminWith(t, []);
    const other = await login(t, admin.email, 'admin-password-123');
    const wrong = await t
      .http()
      .post('/api/v1/auth/password')
      .set(bearer(admin.token))
      .send({ currentPassword: 'not-it-at-all', newPassword: 'a-brand-new-password' });
    expect(wrong.status).toBe(401);
    const short = await t
      .http()
      .post('/api/v1/auth/password')
      .set(bearer(admin.token))
      .send({ currentPassword: 'admin-password-123', newPassword: 'too-short' });
    expect(short.status).toBe(400);
    const ok = await t
      .http()
      .post('/api/v1/auth/password')
      .set(bearer(admin.token))
      .send({ currentPassword: 'admin-password-123', newPassword: 'a-brand-new-password' });
    expect(ok.status).toBe(200);
    expect((await t.http().get('/api/v1/auth/me').set(bearer(other))).status).toBe(401);
    expect((await t.http().get('/api/v1/auth/me').set(bearer(admin.token))).status).toBe(200);
    expect((await attempt(admin.email, 'admin-password-123', '192.0.2.50')).status).toBe(401);
    expect((await attempt(admin.email, 'a-brand-new-password', '192.0.2.50')).status).toBe(200);
    // Guessing the current password is throttled like a login (5 per email and address).
    const guesses: number[] = [];
    for (let i = 0; i < 6; i++) {
      guesses.push(
        (
          await t
            .http()
            .post('/api/v1/auth/password')
            .set(bearer(admin.token))
            .set('X-Forwarded-For', '192.0.2.51')
            .send({ currentPassword: `guess-${i}-xxxxxxxx`, newPassword: 'a-third-long-password' })
        ).status,
      );
    }
    expect(guesses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it("only a super admin sets another admin's password; it revokes that admin's sessions", async () => {
    const target = await adminWith(t, []);
    const helper = await adminWith(t, ['users:read', 'users:write']);
    const refused = await t
      .http()
      .post(`/api/v1/admin/users/${target.id}/password`)
      .set(bearer(helper.token))
      .send({ newPassword: 'set-by-someone-else' });
    expect(refused.status).toBe(403);
    const root = await superAdminToken(t);
    const set = await t
      .http()
      .post(`/api/v1/admin/users/${target.id}/password`)
      .set(bearer(root))
      .send({ newPassword: 'set-by-the-super-admin' });
    expect(set.status).toBe(200);
    expect(set.body.data).not.toHaveProperty('passwordHash');
    expect((await t.http().get('/api/v1/auth/me').set(bearer(target.token))).status).toBe(401);
    expect((await attempt(target.email, 'set-by-the-super-admin', '192.0.2.60')).status).toBe(200);
  });
  it('IPv6 addresses count by their /64: rotating through one prefix does not escape the pair lock', async () => {
    const admin = await adminWith(t, []);
    for (let i = 1; i <= 5; i++)
      expect((await attempt(admin.email, `wrong-${i}`, `2001:db8:1:2::${i}`)).status).toBe(401);
    // Another address of the same /64 is the same client: locked, right password or not.
    expect((await attempt(admin.email, 'admin-password-123', '2001:db8:1:2:ffff::9')).status).toBe(
      429,
    );
    // Another /64 is another client.
    expect((await attempt(admin.email, 'admin-password-123', '2001:db8:1:3::1')).status).toBe(200);
  });

  it('the email lock does not refuse an address the account logged in from within 30 days', async () => {
    const admin = await adminWith(t, []);
    const usual = '192.0.2.77';
    expect((await attempt(admin.email, 'admin-password-123', usual)).status).toBe(200);
    // A flood from elsewhere reaches the email's limit (8 here), one failure per address.
    for (let i = 1; i <= 8; i++)
      expect((await attempt(admin.email, `wrong-${i}`, `198.51.100.${100 + i}`)).status).toBe(401);
    expect((await attempt(admin.email, 'admin-password-123', '198.51.100.200')).status).toBe(429);
    // The admin's usual address still gets in.
    expect((await attempt(admin.email, 'admin-password-123', usual)).status).toBe(200);
    // ... while past 30 days it would not.
    t.clock.advance(31 * 24 * 3600_000);
    for (let i = 1; i <= 8; i++)
      expect((await attempt(admin.email, `wrong-${i}`, `198.51.100.${110 + i}`)).status).toBe(401);
    expect((await attempt(admin.email, 'admin-password-123', usual)).status).toBe(429);
  });

  it('passwords are hashed with scrypt at N = 2^17 by default; an older, cheaper hash is upgraded at the next login', async () => {
    const strong = await createTestApp({ config: { passwordScryptN: 131072 } });
    try {
      const hashOf = async (email: string) =>
        (await strong.db.query('SELECT password_hash FROM admin_users WHERE email = $1', [email]))
          .rows[0].password_hash as string;
      expect(await hashOf('root@joma.test')).toMatch(/^scrypt\$131072\$8\$1\$/);
      await strong.db.query('UPDATE admin_users SET password_hash = $2 WHERE email = $1', [
        'root@joma.test',
        await hashPassword('root-password-123', 16384),
      ]);
      const wrong = await strong
        .http()
        .post('/api/v1/auth/login')
        .send({ email: 'root@joma.test', password: 'not-the-password' });
      expect(wrong.status).toBe(401);
      expect(await hashOf('root@joma.test')).toMatch(/^scrypt\$16384\$/);
      const right = await strong
        .http()
        .post('/api/v1/auth/login')
        .send({ email: 'root@joma.test', password: 'root-password-123' });
      expect(right.status).toBe(200);
      expect(await hashOf('root@joma.test')).toMatch(/^scrypt\$131072\$/);
      // Same password, same sessions: nothing else changed.
      expect(
        (await strong.http().get('/api/v1/auth/me').set(bearer(right.body.data.token))).status,
      ).toBe(200);
    } finally {
      await strong.close();
    }
  });

  // Last: a second app in one process takes over the shared transaction host.
  it('failures per address across many emails lock the address', async () => {
    const strict = await createTestApp({ config: { loginFailuresPerAddress: 3 } });
    try {
      const from = '203.0.113.99';
      for (const n of [1, 2, 3]) {
        const r = await strict
          .http()
          .post('/api/v1/auth/login')
          .set('X-Forwarded-For', from)
          .send({ email: `nobody${n}@joma.test`, password: 'wrong-password' });
        expect(r.status).toBe(401);
      }
      const fourth = await strict
        .http()
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', from)
        .send({ email: 'nobody4@joma.test', password: 'wrong-password' });
      expect(fourth.status).toBe(429);
      const elsewhere = await strict
        .http()
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', '203.0.113.100')
        .send({ email: 'nobody4@joma.test', password: 'wrong-password' });
      expect(elsewhere.status).toBe(401);
    } finally {
      await strict.close();
    }
  });
});
