import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Pool } from 'pg';

import { adminCreateCommand, CliIo } from '../../src/cli/admin-create.command';
import { adminSetPasswordCommand } from '../../src/cli/admin-set-password.command';
import { bearer, login } from '../support/factories';
import { createTestApp, createTestDatabase } from '../support/test-app';
import { createDatabase, databaseUrl, newDatabaseName } from '../support/test-database';

const PASSWORD = 'cli-password-123456';

function capture(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
}

// Each command migrates and each test starts an app to log in: 12-15 s alone, and the
// process lane runs beside browsers and replicas (two clean-clone CI runs timed out at ~37 s).
jest.setTimeout(120_000);

describe('cli: admin:create', () => {
  let url: string;
  let db: Pool;
  const run = async (args: string[], env: Record<string, string> = { DATABASE_URL: url }) => {
    const io = capture();
    const code = await adminCreateCommand(args, env, io);
    return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
  };
  const users = async () =>
    (
      await db.query(
        'SELECT id, email, name, super_admin, permissions, password_hash FROM admin_users ORDER BY id',
      )
    ).rows;

  beforeAll(async () => {
    url = await createTestDatabase('cli');
    db = new Pool({ connectionString: url, max: 2 });
  });
  afterAll(() => db.end());

  it('creates the user, prints its id and never the password; the user can log in with its permissions', async () => {
    const res = await run([
      '--email',
      'ops@cli.joma.test',
      '--password',
      PASSWORD,
      '--name',
      'Ops',
      '--permissions',
      'apps:read, users:read',
    ]);
    expect(res).toMatchObject({ code: 0, err: '' });
    const [row] = await users();
    expect(res.out).toBe(
      `Created admin user ${row.id} <ops@cli.joma.test> (permissions: apps:read,users:read)`,
    );
    expect(row).toMatchObject({
      email: 'ops@cli.joma.test',
      name: 'Ops',
      super_admin: false,
      permissions: ['apps:read', 'users:read'],
    });
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(`${res.out}${res.err}${row.password_hash}`).not.toContain(PASSWORD);

    const t = await createTestApp({
      databaseUrl: url,
      config: { adminEmail: undefined, adminPassword: undefined },
    });
    try {
      const token = await login(t, 'ops@cli.joma.test', PASSWORD);
      const me = await t.http().get('/api/v1/auth/me').set(bearer(token));
      expect(me.body.data).toEqual({
        userId: row.id,
        email: 'ops@cli.joma.test',
        name: 'Ops',
        superAdmin: false,
        permissions: ['apps:read', 'users:read'],
        appIds: null,
      });
      expect((await t.http().get('/api/v1/admin/users').set(bearer(token))).status).toBe(200);
      expect(
        (await t.http().post('/api/v1/admin/apps').set(bearer(token)).send({ name: 'X' })).status,
      ).toBe(403);
    } finally {
      await t.close();
    }
  });

  it('--super creates a super admin', async () => {
    const res = await run([
      '--email=root@cli.joma.test',
      `--password=${PASSWORD}`,
      '--name=Root',
      '--super',
    ]);
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/^Created admin user \d+ <root@cli\.joma\.test> \(super admin\)$/);
    expect((await users()).find((u) => u.email === 'root@cli.joma.test')).toMatchObject({
      super_admin: true,
      permissions: [],
    });
  });

  it('a duplicate email, in any case, exits 1 with a clear message and creates nothing', async () => {
    const before = (await users()).length;
    const res = await run([
      '--email',
      'OPS@cli.joma.test',
      '--password',
      PASSWORD,
      '--name',
      'Again',
    ]);
    expect(res.code).toBe(1);
    expect(res.out).toBe('');
    expect(res.err).toBe('admin:create: an admin user with email OPS@cli.joma.test already exists');
    expect((await users()).length).toBe(before);
  });

  it.each([
    [['--password', PASSWORD, '--name', 'X'], /Missing --email/],
    [['--email', 'a@cli.joma.test', '--name', 'X'], /Missing --password/],
    [['--email', 'a@cli.joma.test', '--password', PASSWORD], /Missing --name/],
    [
      ['--email', 'not-an-email', '--password', PASSWORD, '--name', 'X'],
      /--email: email must be an email/,
    ],
    [['--email', 'a@cli.joma.test', '--password', 'short', '--name', 'X'], /--password: .*12/],
    [
      [
        '--email',
        'a@cli.joma.test',
        '--password',
        PASSWORD,
        '--name',
        'X',
        '--permissions',
        'apps:read,root',
      ],
      /--permissions: /,
    ],
    [
      ['--email', 'a@cli.joma.test', '--password', PASSWORD, '--name', 'X', '--admin'],
      /Unknown option '--admin'/,
    ],
    [['--email', 'a@cli.joma.test', '--password', PASSWORD, '--name', 'X', 'extra'], /positional/],
    [['--email', 'a@cli.joma.test', '--password', PASSWORD, '--name'], /--name/],
  ])(
    'bad input %j exits 2 with a message and the usage, creating nothing',
    async (args, message) => {
      const before = (await users()).length;
      const res = await run(args);
      expect(res.code).toBe(2);
      expect(res.out).toBe('');
      expect(res.err).toMatch(message);
      expect(res.err).toContain('Usage: npm run cli -- admin:create');
      if (args.includes(PASSWORD)) expect(res.err).not.toContain(PASSWORD);
      expect((await users()).length).toBe(before);
    },
  );

  it('a bad environment variable exits 2 naming it', async () => {
    const res = await run(['--email', 'env@cli.joma.test', '--password', PASSWORD, '--name', 'X'], {
      DATABASE_URL: 'mysql://nope',
    });
    expect(res.code).toBe(2);
    expect(res.err).toMatch(/DATABASE_URL: /);
  });

  it('an unreachable database exits 1 with the reason', async () => {
    const res = await run(
      ['--email', 'down@cli.joma.test', '--password', PASSWORD, '--name', 'X'],
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' },
    );
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/^admin:create failed: .*ECONNREFUSED/);
  });

  it('runs the migrations first, so it works on an empty database', async () => {
    const serverUrl = process.env.JOMA_TEST_SERVER_URL!;
    const empty = newDatabaseName(process.env.JOMA_TEST_RUN_ID!, 'cliempty');
    await createDatabase(serverUrl, empty);
    const emptyUrl = databaseUrl(serverUrl, empty);
    const res = await run(
      ['--email', 'first@cli.joma.test', '--password', PASSWORD, '--name', 'First', '--super'],
      { DATABASE_URL: emptyUrl },
    );
    expect(res.code).toBe(0);
    const pool = new Pool({ connectionString: emptyUrl, max: 1 });
    try {
      expect(
        (await pool.query('SELECT count(*)::int AS n FROM schema_migrations')).rows[0].n,
      ).toBeGreaterThan(0);
      expect((await pool.query('SELECT email FROM admin_users')).rows).toEqual([
        { email: 'first@cli.joma.test' },
      ]);
    } finally {
      await pool.end();
    }
  });

  it('`npm run cli -- admin:create` works end to end as a process', async () => {
    const root = join(__dirname, '..', '..');
    const exec = promisify(execFile);
    const ok = await exec(
      'npm',
      [
        'run',
        '-s',
        'cli',
        '--',
        'admin:create',
        '--email',
        'proc@cli.joma.test',
        '--password',
        PASSWORD,
        '--name',
        'Proc',
      ],
      {
        cwd: root,
        env: { ...process.env, DATABASE_URL: url },
      },
    );
    expect(ok.stdout).toMatch(
      /^Created admin user \d+ <proc@cli\.joma\.test> \(permissions: \(none\)\)\n$/,
    );
    expect(ok.stdout + ok.stderr).not.toContain(PASSWORD);
    const dup = await exec(
      'npm',
      [
        'run',
        '-s',
        'cli',
        '--',
        'admin:create',
        '--email',
        'proc@cli.joma.test',
        '--password',
        PASSWORD,
        '--name',
        'Proc',
      ],
      {
        cwd: root,
        env: { ...process.env, DATABASE_URL: url },
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('already exists');
  }, 180_000);

  it('admin:create takes the password from standard input or JOMA_ADMIN_PASSWORD when --password is left out', async () => {
    const io = { ...capture(), readStdin: async () => `${PASSWORD}\n` };
    const code = await adminCreateCommand(
      ['--email', 'stdin@cli.joma.test', '--name', 'S'],
      { DATABASE_URL: url },
      io,
    );
    expect(code).toBe(0);
    const fromEnv = await run(['--email', 'env-pw@cli.joma.test', '--name', 'E'], {
      DATABASE_URL: url,
      JOMA_ADMIN_PASSWORD: PASSWORD,
    });
    expect(fromEnv.code).toBe(0);
    const t = await createTestApp({ databaseUrl: url });
    try {
      expect(await login(t, 'stdin@cli.joma.test', PASSWORD)).toBeTruthy();
      expect(await login(t, 'env-pw@cli.joma.test', PASSWORD)).toBeTruthy();
    } finally {
      await t.close();
    }
  });

  describe('admin:set-password', () => {
    const setPassword = async (args: string[], stdin: string, env: Record<string, string> = {}) => {
      const io = { ...capture(), readStdin: async () => stdin };
      const code = await adminSetPasswordCommand(args, { DATABASE_URL: url, ...env }, io);
      return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
    };

    it('reads the password from standard input (never argv), sets it and revokes the sessions', async () => {
      const created = await run([
        '--email',
        'forgot@cli.joma.test',
        '--password',
        PASSWORD,
        '--name',
        'F',
      ]);
      expect(created.code).toBe(0);
      const id = (await db.query(`SELECT id FROM admin_users WHERE email = 'forgot@cli.joma.test'`))
        .rows[0].id;
      await db.query(
        `INSERT INTO admin_sessions (user_id, token_id, expires_at) VALUES ($1, 'cli-session-1', now() + interval '1 hour')`,
        [id],
      );
      const res = await setPassword(['--email', 'FORGOT@cli.joma.test'], 'a-new-long-password\n');
      expect(res).toMatchObject({ code: 0, err: '' });
      expect(res.out).toBe(
        `Password set for admin user ${id} <forgot@cli.joma.test>; their sessions were revoked`,
      );
      expect(res.out).not.toContain('a-new-long-password');
      const session = await db.query(
        `SELECT revoked_at FROM admin_sessions WHERE token_id = 'cli-session-1'`,
      );
      expect(session.rows[0].revoked_at).not.toBeNull();
      const t = await createTestApp({ databaseUrl: url });
      try {
        expect(await login(t, 'forgot@cli.joma.test', 'a-new-long-password')).toBeTruthy();
      } finally {
        await t.close();
      }
    });

    it('takes JOMA_ADMIN_PASSWORD instead of standard input; refuses a short one, an unknown email, a --password flag', async () => {
      expect(
        (
          await setPassword(['--email', 'forgot@cli.joma.test'], '', {
            JOMA_ADMIN_PASSWORD: 'from-the-environment',
          })
        ).code,
      ).toBe(0);
      const short = await setPassword(['--email', 'forgot@cli.joma.test'], 'short\n');
      expect(short.code).toBe(2);
      expect(short.err).toMatch(/at least 12 characters/);
      const unknown = await setPassword(
        ['--email', 'nobody@cli.joma.test'],
        'a-new-long-password\n',
      );
      expect(unknown).toMatchObject({
        code: 1,
        err: 'admin:set-password: no admin user has the email nobody@cli.joma.test',
      });
      const flag = await setPassword(
        ['--email', 'forgot@cli.joma.test', '--password', 'a-new-long-password'],
        '',
      );
      expect(flag.code).toBe(2);
      expect(flag.err).toMatch(/Unknown option '--password'/);
      expect(flag.err).not.toContain('a-new-long-password');
    });
  });
});
