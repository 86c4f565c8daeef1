import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { until } from '../support/main-process';
import { createTestApp, TestApp } from '../support/test-app';

const run = promisify(execFile);

const repo = resolve(__dirname, '..', '..');

/**
 * The walk's `joma listen` processes (npm, the launcher, the client), found by
 * the JOMA_BASE_URL their environment names (/proc, as `ps e` reads it):
 * their pids and command lines, as `ps` shows them to other users.
 */
async function listenersOf(baseUrl: string): Promise<{ pid: number; cmdline: string }[]> {
  const found: { pid: number; cmdline: string }[] = [];
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const env = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
    if (!env.split('\0').includes(`JOMA_BASE_URL=${baseUrl}`)) continue;
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '');
    found.push({ pid: Number(pid), cmdline: cmd.split('\0').join(' ') });
  }
  return found;
}

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
    // While the walk runs, what `ps` shows of its joma listen (never the secret).
    const seen = new Map<number, string>();
    let walking = true;
    const watching = (async () => {
      while (walking) {
        for (const p of await listenersOf(t.baseUrl)) seen.set(p.pid, p.cmdline);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const { stdout } = await run(
      'node',
      [join(repo, 'scripts', 'readme-walk.mjs'), '--base-url', t.baseUrl],
      {
        cwd: repo,
      },
    ).finally(() => (walking = false));
    await watching;
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
    // ps showed the listener (npm, the launcher, the client) but never the secret,
    // and `kill %1` stopped all of it: nothing outlives the walk.
    expect([...seen.values()].some((c) => c.includes('cli.js listen'))).toBe(true);
    expect([...seen.values()].filter((c) => /sk_(test|live)_/.test(c))).toEqual([]);
    await until(async () => (await listenersOf(t.baseUrl)).length === 0, 10_000);

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
