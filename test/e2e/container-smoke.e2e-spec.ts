import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { createApp } from '../support/factories';
import { createInvoice } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

const run = promisify(execFile);
const repo = resolve(__dirname, '..', '..');

/**
 * scripts/container-smoke.mjs, the smoke set the GitHub workflow runs against
 * the Docker image, run here against a test instance so it is known to pass
 * on a healthy Joma (and to fail on one whose proxy setting is wrong).
 */
describe('the container smoke set (scripts/container-smoke.mjs)', () => {
  let t: TestApp;
  const smoke = (target: TestApp, extra: string[] = []) =>
    run(
      'node',
      [join(repo, 'scripts', 'container-smoke.mjs'), '--base-url', target.baseUrl, ...extra],
      {
        cwd: repo,
      },
    ).catch((e: { stdout: string; code: number }) => e);

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('passes every check on a healthy instance', async () => {
    const app = await createApp(t);
    const invoice = await createInvoice(t, app.TEST);
    const out = await smoke(t, ['--pay-url', invoice.payableUrl]);
    expect('code' in out ? out.code : 0).toBe(0);
    expect(out.stdout.trim().split('\n')).toEqual([
      'ok   GET /healthz and /readyz answer 200',
      'ok   the OpenAPI document is served, with readable operation ids',
      'ok   GET / redirects to the dashboard, which is served',
      'ok   a pay page speaks Bangla and links to the public base URL',
      "ok   X-Forwarded-For names the client: one customer's login lock-out is not another's",
    ]);
  }, 60_000);

  it('fails when X-Forwarded-For is not trusted (every customer one address)', async () => {
    const untrusting = await createTestApp({ config: { trustProxy: false } });
    try {
      const out = await smoke(untrusting);
      expect('code' in out ? out.code : 0).toBe(1);
      expect(out.stdout).toContain(
        "FAIL X-Forwarded-For names the client: one customer's login lock-out is not another's",
      );
    } finally {
      await untrusting.close();
    }
  }, 60_000);
});
