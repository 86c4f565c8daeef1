import { AppConfig } from '../config/app-config';
import { AdminBootstrapService } from './admin-bootstrap.service';
import type { AdminUsersService } from './admin-users.service';

/** The start-up line about admins, for each way the two settings can be given. */
describe('AdminBootstrapService status', () => {
  const statusWith = async (
    admins: number,
    env: { adminEmail?: string; adminPassword?: string },
  ) => {
    const created: unknown[] = [];
    const users = {
      count: async () => admins,
      create: async (u: unknown) => void created.push(u),
    } as unknown as AdminUsersService;
    const config = new AppConfig({
      port: 0,
      databaseUrl: 'postgres://x/y',
      publicBaseUrl: 'http://localhost',
      jwtSecret: 'x'.repeat(32),
      encryptionKeyHex: '0'.repeat(64),
      ...env,
    });
    const service = new AdminBootstrapService(config, users);
    await service.onApplicationBootstrap();
    return { status: service.status, warning: service.statusIsWarning, created: created.length };
  };

  it('neither setting: says how to make one', async () => {
    expect(await statusWith(0, {})).toEqual({
      status: expect.stringMatching(
        /^No admin user yet: set ADMIN_EMAIL and ADMIN_PASSWORD and restart, or pipe a password into `npm run cli -- admin:create/,
      ),
      warning: false,
      created: 0,
    });
  });

  it.each([
    [{ adminEmail: 'a@example.com' }, 'ADMIN_EMAIL is set but ADMIN_PASSWORD is not'],
    [{ adminPassword: 'a-long-password' }, 'ADMIN_PASSWORD is set but ADMIN_EMAIL is not'],
  ])(
    'one without the other (%o): a warning naming the missing one, no admin',
    async (env, says) => {
      const got = await statusWith(0, env);
      expect(got).toMatchObject({ warning: true, created: 0 });
      expect(got.status).toContain(says);
    },
  );

  it('both: creates the first super admin; once admins exist, nothing is created', async () => {
    expect(
      await statusWith(0, { adminEmail: 'a@example.com', adminPassword: 'a-long-password' }),
    ).toMatchObject({ created: 1, warning: false });
    expect(await statusWith(2, { adminEmail: 'a@example.com' })).toEqual({
      status: 'Admin users: 2 (log in at POST /api/v1/auth/login)',
      warning: false,
      created: 0,
    });
  });
});

/** A database dropping connections at start-up is waited for within DB_CONNECT_RETRY_MS (decisions 10). */
describe('AdminBootstrapService and a lost connection', () => {
  const lost = () => new Error('Connection terminated unexpectedly');
  const service = (users: Partial<AdminUsersService>, dbConnectRetryMs: number) =>
    new AdminBootstrapService(
      new AppConfig({
        port: 0,
        databaseUrl: 'postgres://x/y',
        publicBaseUrl: 'http://localhost',
        jwtSecret: 'x'.repeat(32),
        encryptionKeyHex: '0'.repeat(64),
        adminEmail: 'a@example.com',
        adminPassword: 'a-long-password',
        dbConnectRetryMs,
      }),
      users as AdminUsersService,
    );

  it('tries again, from the count, until the database answers', async () => {
    let counts = 0;
    let creates = 0;
    const s = service(
      {
        count: async () => {
          if (++counts === 1) throw lost();
          return 0;
        },
        create: async () => {
          if (++creates === 1) throw lost();
          return {} as never;
        },
      },
      10_000,
    );
    await s.onApplicationBootstrap();
    expect([counts, creates]).toEqual([3, 2]);
    expect(s.status).toBe(
      'Created the first super admin (a@example.com) from ADMIN_EMAIL/ADMIN_PASSWORD',
    );
  });

  it('with DB_CONNECT_RETRY_MS=0, one try: the lost connection ends start-up', async () => {
    const s = service({ count: () => Promise.reject(lost()) }, 0);
    await expect(s.onApplicationBootstrap()).rejects.toThrow('Connection terminated unexpectedly');
  });
});
