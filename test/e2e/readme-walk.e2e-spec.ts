import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { createTestApp, TestApp } from '../support/test-app';

const run = promisify(execFile);

const repo = resolve(__dirname, '..', '..');

/** The bash blocks of the README's "Try it" section, in order: scripts/readme-walk.mjs reads them. */
async function readmeWalk(readme: string): Promise<string[]> {
  const script = join(repo, 'scripts', 'readme-walk.mjs');
  const walk = (await import(script)) as { readmeWalk(readme: string): string[] };
  return walk.readmeWalk(readme);
}

/**
 * The README's walk, typed literally: its commands run as a bash script
 * against a test instance (only the base URL differs); step 4, the
 * customer's clicks in a browser, is done over HTTP in between.
 */
describe('the README walk, as a script', () => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    t = await createTestApp({
      config: { adminEmail: 'admin@example.com', adminPassword: 'change-me-now' },
    });
    dir = mkdtempSync(join(tmpdir(), 'joma-readme-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in, creates an app, issues an invoice, listens, is paid, receives the events, and lists them', async () => {
    // scripts/readme-walk.mjs: the same script the GitHub workflow runs against the Docker image.
    const { stdout } = await run(
      'node',
      [join(repo, 'scripts', 'readme-walk.mjs'), '--base-url', t.baseUrl],
      {
        cwd: repo,
      },
    );
    const result = JSON.parse(stdout) as {
      payableUrl: string;
      landing: string;
      events: string[];
      received: string[];
    };
    expect(result.payableUrl).toMatch(new RegExp(`^${t.baseUrl}/pay/[A-Za-z0-9_-]{20,64}$`));
    expect(result.landing).toBe(`200 ${result.payableUrl}`);
    expect(result.events).toEqual(['invoice.issued', 'payment.succeeded', 'invoice.paid']);
    // joma listen received what happened after it started, in order.
    expect(result.received).toEqual(['payment.succeeded', 'invoice.paid']);

    // A reader's English browser (with none, the page speaks the app's defaultLanguage, bn).
    const page = await t
      .http()
      .get(new URL(result.payableUrl).pathname)
      .set('Accept-Language', 'en');
    expect(page.text).toContain('This invoice is paid');
    expect(page.text).toContain('for Rahim Uddin');
    const rows = await t.db.query(`SELECT status, amount_paid_minor FROM invoices`);
    expect(rows.rows).toEqual([{ status: 'PAID', amount_paid_minor: 90000 }]);
  }, 150_000);

  it('a second run issues a second invoice (fresh Idempotency-Key), not a 422', async () => {
    const [setup] = (
      await readmeWalk(readFileSync(resolve(__dirname, '..', '..', 'README.md'), 'utf8'))
    ).map((b) => b.replace('B=http://localhost:3000\n', `B=${t.baseUrl}\n`));
    const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${setup}`], { cwd: dir });
    expect(stdout.trim()).toMatch(/\/pay\/[A-Za-z0-9_-]{20,64}$/);
    const rows = await t.db.query(`SELECT count(*)::int AS n FROM invoices`);
    expect(rows.rows[0].n).toBe(2);
  }, 60_000);
});
