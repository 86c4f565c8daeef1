import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { freePort } from '../../src/common/net/free-port';
import { type Run, startMain, until } from '../support/main-process';
import { createTestDatabase } from '../support/test-app';

const run = promisify(execFile);
const repo = resolve(__dirname, '..', '..');

/**
 * The machine's Node.js 20, which the README says Joma still runs on: from
 * JOMA_NODE20 (a path), else the first `node` on the standard system paths
 * that is a 20.x. Undefined when there is none (a machine with only a newer
 * Node.js); .ci/run always has one, the machine's own.
 */
function node20(): string | undefined {
  const candidates = [process.env.JOMA_NODE20, '/usr/bin/node', '/usr/local/bin/node', '/bin/node'];
  for (const c of candidates) {
    if (!c || !existsSync(c)) continue;
    try {
      if (/^v20\./.test(execFileSync(c, ['-v'], { encoding: 'utf8' }).trim())) return c;
    } catch {
      // not runnable: try the next
    }
  }
  return undefined;
}

/**
 * The two paths a newcomer takes that the rest of the suite does not
 * (issue 58): `npm test` with no DATABASE_URL, which starts an embedded
 * PostgreSQL under ./.data/test-pg (every other run of the suite is given a
 * server), and the service on the end-of-life Node.js 20 the README names.
 */
describe('the default paths', () => {
  it('npm test with no DATABASE_URL runs its files on an embedded PostgreSQL under .data/test-pg', async () => {
    // This run's own settings would make the nested run reuse them: it must find its own server.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !/^(DATABASE_URL|TEST_DATABASE_URL|JOMA_TEST_|CI_TEST_RUN_DIR|JEST_)/.test(k),
      ),
    ) as NodeJS.ProcessEnv;
    const { stdout, stderr } = await run(
      process.execPath,
      [
        join(repo, 'node_modules', 'jest', 'bin', 'jest.js'),
        '--selectProjects',
        'medium',
        '--testPathPatterns',
        'pool-idle',
        '--ci',
        '--json',
      ],
      { cwd: repo, env, maxBuffer: 16 * 1024 * 1024, timeout: 170_000 },
    ).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`nested npm test failed: ${err.message}\n${err.stderr ?? ''}`);
    });
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      success: boolean;
      numPassedTests: number;
      numFailedTests: number;
    };
    expect(report).toMatchObject({ success: true, numFailedTests: 0 });
    expect(report.numPassedTests).toBeGreaterThan(0);
    // It said where its server came from: global-setup's embedded branch.
    expect(stdout + stderr).toMatch(/Test database server: embedded PostgreSQL \(files in \S+\)/);
  }, 180_000);

  const onNode20 = node20() ? it : it.skip;
  let service: Run | undefined;
  afterAll(() => {
    if (service && service.child.exitCode === null) service.child.kill('SIGKILL');
  });

  onNode20(
    "the service starts on the machine's Node.js 20: one warning naming the fix, then it answers, signs in and serves its document",
    async () => {
      const url = await createTestDatabase('node20');
      const port = await freePort();
      service = startMain(
        {
          DATABASE_URL: url,
          PORT: String(port),
          HOST: '127.0.0.1',
          ADMIN_EMAIL: 'owner@example.com',
          ADMIN_PASSWORD: 'owner-password-123',
        },
        { node: node20() },
      );
      await until(
        () =>
          service!.out.some((l) => l.includes('Listening on')) || service!.child.exitCode !== null,
        90_000,
      );
      expect(service.child.exitCode).toBeNull();
      const messages = service.out.map((l) => JSON.parse(l) as { level: number; msg: string });
      const warnings = messages.filter((m) => m.level === 40).map((m) => m.msg);
      expect(warnings).toEqual([
        expect.stringMatching(/^Node\.js v20\.\S+ is not supported .*upgrade to Node\.js 24 LTS/),
      ]);
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const login = await fetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'owner@example.com', password: 'owner-password-123' }),
      });
      expect(login.status).toBe(200);
      expect(((await login.json()) as { data: { token?: string } }).data.token).toEqual(
        expect.any(String),
      );
      const doc = await fetch(`${base}/docs-json`);
      expect(doc.status).toBe(200);
      expect(((await doc.json()) as { openapi: string }).openapi).toMatch(/^3\./);
      service.child.kill('SIGTERM');
      expect(await service.exited).toEqual({ code: 0, signal: null });
    },
    120_000,
  );
});
